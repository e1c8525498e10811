import BLEWire

/// The devices a scan has found, merged by address, with the filter that decides which are reported.
/// A device that does not match yet is still tracked: its scan response may bring the name or the
/// service that makes it match. At most `capacity` devices are tracked; reports from further
/// addresses are counted in `untracked` and dropped.
public struct DiscoveryTable: Sendable {
    /// What one report changed.
    public enum Change: Sendable, Hashable {
        /// The device does not match the filter (yet).
        case unmatched
        /// The device matches for the first time.
        case matched
        /// A matching device's shown fields changed.
        case updated
        /// A matching device's report changed nothing shown.
        case unchanged
    }

    /// Decides which devices count as matched.
    public let filter: ScanFilter
    /// The most devices tracked at once; reports from further addresses are counted in `untracked`.
    public let capacity: Int
    private var devices: [BluetoothAddress: DiscoveredDevice] = [:]
    private var matchedOrder: [BluetoothAddress] = []
    private var matchedSet: Set<BluetoothAddress> = []
    /// Reports dropped because `capacity` devices were already tracked.
    public private(set) var untracked = 0

    /// An empty table that tracks up to `capacity` devices.
    public init(filter: ScanFilter, capacity: Int = 4096) {
        self.filter = filter
        self.capacity = capacity
    }

    /// Merges one report; returns the device as it now stands and what changed.
    @discardableResult
    public mutating func add(_ advertisement: HCIAdvertisement) -> (device: DiscoveredDevice, change: Change)? {
        let key = advertisement.address
        var changed = true
        var device: DiscoveredDevice
        if var known = devices[key] {
            changed = known.merge(advertisement)
            device = known
        } else {
            guard devices.count < capacity else {
                untracked += 1
                return nil
            }
            device = DiscoveredDevice(advertisement)
        }
        devices[key] = device
        if matchedSet.contains(key) { return (device, changed ? .updated : .unchanged) }
        guard filter.matches(device) else { return (device, .unmatched) }
        matchedOrder.append(key)
        matchedSet.insert(key)
        return (device, .matched)
    }

    /// The matching devices, in the order they first matched.
    public var matched: [DiscoveredDevice] { matchedOrder.compactMap { devices[$0] } }

    /// Every device tracked, matching or not.
    public var count: Int { devices.count }
}
