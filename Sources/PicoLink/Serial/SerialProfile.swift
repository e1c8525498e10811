public import BLEHost
public import BLEWire

/// A serial-port-over-GATT service: the service, the characteristic the host writes (`rx`, host →
/// device) and the one the device notifies (`tx`, device → host). HM-10 uses one characteristic
/// both ways.
public enum SerialProfile: Sendable, Hashable, CustomStringConvertible {
    /// HM-10 and its clones: service `FFE0`, characteristic `FFE1` both ways.
    case hm10
    /// Laird Virtual Serial Port (the EmStat Pico's BT900): RX/TX, paced by ModemOut.
    case lairdVSP
    /// Nordic UART Service: RX `6E400002-…` (write), TX `6E400003-…` (notify).
    case nordicUART
    /// Any other service, by its UUIDs.
    case custom(service: BluetoothUUID, rx: BluetoothUUID, tx: BluetoothUUID)

    /// The profiles `detect(in:)` recognises, in the order it prefers them.
    public static let known: [SerialProfile] = [.lairdVSP, .hm10, .nordicUART]

    /// The service's UUID.
    public var service: BluetoothUUID {
        switch self {
        case .hm10: .hm10Service
        case .lairdVSP: .lairdVSPService
        case .nordicUART: .nordicUARTService
        case .custom(let service, _, _): service
        }
    }

    /// The characteristic the host writes.
    public var rx: BluetoothUUID {
        switch self {
        case .hm10: .hm10Characteristic
        case .lairdVSP: .lairdVSPRx
        case .nordicUART: .nordicUARTRx
        case .custom(_, let rx, _): rx
        }
    }

    /// The characteristic the device notifies.
    public var tx: BluetoothUUID {
        switch self {
        case .hm10: .hm10Characteristic
        case .lairdVSP: .lairdVSPTx
        case .nordicUART: .nordicUARTTx
        case .custom(_, _, let tx): tx
        }
    }

    /// The first known profile whose service is among `services`.
    public static func detect(in services: [GATTService]) -> SerialProfile? {
        known.first { profile in services.contains { $0.uuid == profile.service } }
    }

    /// The profile's name (`HM-10`, `Laird VSP`, `Nordic UART`), or a custom profile's UUIDs.
    public var description: String {
        switch self {
        case .hm10: "HM-10"
        case .lairdVSP: "Laird VSP"
        case .nordicUART: "Nordic UART"
        case .custom(let service, let rx, let tx): "custom (service \(service), rx \(rx), tx \(tx))"
        }
    }
}
