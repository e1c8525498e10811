public import BLEDiagnostics
public import BLEHost

/// Why `EchoTiming` measured nothing.
public enum EchoTimingError: Error, Sendable, CustomStringConvertible {
    /// The device has no serial service, or its service lacks a characteristic the timing needs.
    case noSerialService(String)
    /// Discovery or the subscription failed (an invalid payload size is `.gatt(.invalidArgument)`).
    case gatt(GATTError)
    /// The round trips failed: an echo never came, or was not the payload.
    case probe(GATTEchoProbe.Failure)
    /// The timed round trips did not report their start and end.
    case unmarked

    /// What went wrong.
    public var description: String {
        switch self {
        case .noSerialService(let text): text
        case .gatt(let error): "\(error)"
        case .probe(let failure): "\(failure)"
        case .unmarked: "the timed round trips did not report their start and end"
        }
    }
}
