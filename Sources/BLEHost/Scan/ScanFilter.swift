public import BLEWire

/// Which discovered devices a scan reports. Every condition given must hold: one of `services`
/// advertised (when any are given), the name starting with `namePrefix` (case-sensitive), the
/// address equal to `address` (its value: the type is not compared).
public struct ScanFilter: Sendable, Hashable {
    /// Service UUIDs of which the device must advertise at least one; empty for any.
    public var services: [BluetoothUUID]
    /// The prefix the device's name must start with (case-sensitive); nil for any name. A device whose
    /// name is not known yet does not match.
    public var namePrefix: String?
    /// The address the device must have (its value; the type is not compared); nil for any.
    public var address: BluetoothAddress?

    /// A filter of the conditions given; with none, every device matches.
    public init(services: [BluetoothUUID] = [], namePrefix: String? = nil, address: BluetoothAddress? = nil) {
        self.services = services
        self.namePrefix = namePrefix
        self.address = address
    }

    /// Every device.
    public static let all = ScanFilter()

    /// The devices advertising the Laird Virtual Serial Port service (the EmStat Pico's).
    public static let lairdVSP = ScanFilter(services: [.lairdVSPService])

    /// Whether `device`, as seen so far, meets every condition.
    public func matches(_ device: DiscoveredDevice) -> Bool {
        if !services.isEmpty, !services.contains(where: device.services.contains) { return false }
        if let namePrefix, device.name?.hasPrefix(namePrefix) != true { return false }
        if let address, address.value != device.address.value { return false }
        return true
    }
}
