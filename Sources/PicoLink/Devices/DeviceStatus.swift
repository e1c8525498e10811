/// Where a device's link stands, as `DeviceManager` reports it on the device's status stream.
public enum DeviceStatus: Sendable, Equatable, CustomStringConvertible {
    case disconnected(reason: String?)
    /// Connecting; `attempt` counts from 1 and grows while reconnecting.
    case connecting(attempt: Int)
    case connected
    /// A script is running; `run` is the run number on this device.
    case running(run: Int)
    case disconnecting
    /// Waiting `delay` seconds before reconnect attempt `attempt`.
    case waitingToReconnect(attempt: Int, delay: Double)

    public var description: String {
        switch self {
        case .disconnected(let reason?): "disconnected (\(reason))"
        case .disconnected(nil): "disconnected"
        case .connecting(let attempt): attempt == 1 ? "connecting" : "connecting (attempt \(attempt))"
        case .connected: "connected"
        case .running(let run): "running (run \(run))"
        case .disconnecting: "disconnecting"
        case .waitingToReconnect(let attempt, let delay):
            "reconnecting in \(SIFormat.trimmed(delay, digits: 3)) s (attempt \(attempt))"
        }
    }
}
