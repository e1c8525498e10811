import BLEHost
import BLELinux
import PicoLink

/// Why a link could not be opened, or a step on it failed (pairing, the session): what went wrong, in
/// words for a person, and the typed cause a program maps to its own outcome (the CLI to an exit
/// status, the rig to a retry).
public struct LinkOpenError: Error, CustomStringConvertible, Sendable {
    /// What failed, with the device and the reason (`AA:BB:…: connect: timed out`).
    public let description: String
    /// The kind of failure, with the error of the layer that failed where there is one.
    public let cause: Cause

    /// A failure described by `description`, caused by `cause`.
    public init(_ description: String, cause: Cause) {
        self.description = description
        self.cause = cause
    }

    /// The kinds of failure.
    public enum Cause: Sendable {
        /// Something the caller gave cannot be used: an unwritable capture path, an unreadable bond store.
        case badInput
        /// The kernel path or a transport failed (no adapter, no permission, busy, timed out…).
        case system(BLELinuxError)
        /// hcipico's own HCI host failed (the controller, the connect).
        case host(HCIHostError)
        /// The GATT client failed (the MTU exchange, discovery).
        case gatt(GATTError)
        /// The EmStat Pico session could not be opened.
        case session(PicoSessionError)
        /// Pairing or encryption failed, or the link stayed below the security asked for.
        case securityFailed
        /// A pairing succeeded but its bond could not be kept.
        case bondNotKept
        /// A simulated device could not be started.
        case simulator
    }
}
