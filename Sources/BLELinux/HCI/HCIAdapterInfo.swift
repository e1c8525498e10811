public import BLEWire

/// An adapter as the kernel lists it (`HCIGETDEVINFO`).
public struct HCIAdapterInfo: Sendable, Hashable, CustomStringConvertible {
    /// Which adapter: `hciN`, N being the kernel's device index.
    public let name: HCIAdapterName
    /// The adapter's public address (all zero while it has never been up).
    public let address: BluetoothAddress
    /// The kernel's `HCI_UP` flag.
    public let isUp: Bool
    /// The kernel's device flags (`hci_dev_info.flags`).
    public let flags: UInt32

    /// An adapter with the given name, address and state, as `HCIAdapters` reads them from the kernel.
    public init(name: HCIAdapterName, address: BluetoothAddress, isUp: Bool, flags: UInt32) {
        self.name = name
        self.address = address
        self.isUp = isUp
        self.flags = flags
    }

    /// The name, the address and `up` or `down`, two spaces apart.
    public var description: String { "\(name)  \(address)  \(isUp ? "up" : "down")" }
}
