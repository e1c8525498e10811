/// Where a device's link stands, as a `DeviceKeeper` reports it (`DeviceManager` on each device's
/// status stream).
public enum DeviceStatus: Sendable, Equatable, CustomStringConvertible {
    /// Not connected. `reason` says why the link was lost or the last connection attempt failed; nil before
    /// the first connection and after `disconnect()`.
    case disconnected(reason: String?)
    /// Connecting; `attempt` counts from 1 and grows while reconnecting.
    case connecting(attempt: Int)
    /// Connected, with a session, and no script running.
    case connected
    /// A script is running; `run` is the run number on this device.
    case running(run: Int)
    /// The keeper was stopped (`disconnect()`) and is closing the link.
    case disconnecting
    /// Waiting `delay` seconds before connection attempt `attempt` (the one after a failed attempt).
    case waitingToReconnect(attempt: Int, delay: Double)

    /// A short phrase for status lines: `connecting (attempt 2)`, `running (run 3)`, `disconnected (<reason>)`.
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
