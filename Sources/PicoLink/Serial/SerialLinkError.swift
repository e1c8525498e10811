public import BLEHost

/// Why a serial link could not be opened or stopped working.
public enum SerialLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link went away; every byte received before was delivered.
    case connectionLost(GATTError)
    /// A GATT procedure failed.
    case gatt(GATTError)
    /// The device has no serial service the link can use, or it lacks a characteristic.
    case noSerialService(String)

    /// The error in words for a log line, e.g. `no serial service: the device has no service …`.
    public var description: String {
        switch self {
        case .connectionLost(let reason): "connection lost: \(reason)"
        case .gatt(let error): "GATT: \(error)"
        case .noSerialService(let what): "no serial service: \(what)"
        }
    }

    /// Maps a GATT failure: a closed bearer is a lost connection.
    static func from(_ error: GATTError) -> SerialLinkError {
        switch error {
        case .disconnected, .send: return .connectionLost(error)
        default: return .gatt(error)
        }
    }
}
