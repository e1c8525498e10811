public import BLEWire

/// An adapter as the kernel lists it (`HCIGETDEVINFO`).
public struct HCIAdapterInfo: Sendable, Hashable, CustomStringConvertible {
    public let name: HCIAdapterName
    /// The adapter's public address (all zero while it has never been up).
    public let address: BluetoothAddress
    /// The kernel's `HCI_UP` flag.
    public let isUp: Bool
    /// The kernel's device flags (`hci_dev_info.flags`).
    public let flags: UInt32

    public init(name: HCIAdapterName, address: BluetoothAddress, isUp: Bool, flags: UInt32) {
        self.name = name
        self.address = address
        self.isUp = isUp
        self.flags = flags
    }

    public var description: String { "\(name)  \(address)  \(isUp ? "up" : "down")" }
}
