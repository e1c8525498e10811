import BLEWire

/// The fields every LE connection-complete event carries — LE Connection Complete, LE Enhanced
/// Connection Complete v1 and v2 (Core 5.4 Vol 4 Part E §7.7.65.1, .10, .10 v2) — so the host
/// handles the three alike.
protocol HCILEConnectionCompletion {
    var status: HCIStatus { get }
    var connectionHandle: UInt16 { get }
    var role: UInt8 { get }
    var peerAddressType: UInt8 { get }
    var peerAddress: BluetoothAddress { get }
    var connectionInterval: UInt16 { get }
    var peripheralLatency: UInt16 { get }
    var supervisionTimeout: UInt16 { get }
}

extension HCILEConnectionCompleteEvent: HCILEConnectionCompletion {}
extension HCILEEnhancedConnectionCompleteEvent: HCILEConnectionCompletion {}
extension HCILEEnhancedConnectionCompleteV2Event: HCILEConnectionCompletion {}

extension HCILEConnectionCompletion {
    /// The peer with the address type the event gives (an unknown type is taken as random).
    var peer: BluetoothAddress {
        BluetoothAddress(
            value: peerAddress.value,
            type: BluetoothAddress.AddressType(rawValue: peerAddressType) ?? .random
        )
    }
}
