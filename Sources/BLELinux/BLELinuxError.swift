internal import Glibc

/// Why the Linux layer could not open an adapter or a link, with a one-line explanation a rig operator
/// can act on. `kind` is what the command line maps to its exit status.
public struct BLELinuxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of a failure, which the command line maps to its exit status (`adapterDown` and `adapterUp`
    /// share one).
    public enum Kind: Sendable, Hashable {
        /// The kernel has no Bluetooth (`EAFNOSUPPORT`).
        case noBluetooth
        /// Missing `CAP_NET_RAW` or `CAP_NET_ADMIN` (`EPERM`, `EACCES`).
        case noPermission
        /// No such adapter, or none at all (`ENODEV`).
        case noAdapter
        /// The adapter is down (`ENETDOWN`, or its flags).
        case adapterDown
        /// The adapter is up but the user channel needs it down.
        case adapterUp
        /// The adapter or the link is held by another program (`EBUSY`).
        case busy
        /// The peer or the controller did not answer in time.
        case timedOut
        /// The caller cancelled.
        case cancelled
        /// The peer refused or could not be reached.
        case refused
        /// The link could not reach the security level asked for.
        case securityFailed
        /// The transport's host name did not resolve.
        case unresolvedHost
        /// Anything else; `underlying` says which call failed.
        case system
    }

    /// What class of failure this is.
    public let kind: Kind
    /// One line, without a trailing period.
    public let message: String
    /// The failed system call behind this error, when it was built from a `SystemError`; nil for failures no
    /// call reported (an adapter found down, a refused or unanswered HCI command, a connect that timed out).
    public let underlying: SystemError?

    /// An error of `kind` with its one-line `message`, and the system call behind it if there is one.
    public init(_ kind: Kind, _ message: String, underlying: SystemError? = nil) {
        self.kind = kind
        self.message = message
        self.underlying = underlying
    }

    /// `message`, as it is printed.
    public var description: String { message }

    /// Maps a failed call to the explanation for it. `subject` names the adapter or the peer.
    public init(_ error: SystemError, subject: String) {
        switch error.errno {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            self.init(
                .noBluetooth,
                "this kernel has no Bluetooth support (socket: EAFNOSUPPORT); load the bluetooth module (modprobe bluetooth), or drive a controller over H4 on a serial port or TCP",
                underlying: error
            )
        case EACCES where error.syscall != .connect, EPERM:
            self.init(
                .noPermission,
                "permission denied for \(subject) (\(error.syscall.rawValue): \(error.errnoName)); run as root or grant CAP_NET_RAW and CAP_NET_ADMIN (setcap cap_net_raw,cap_net_admin+eip hcipico)",
                underlying: error
            )
        case ENODEV:
            self.init(
                .noAdapter,
                "no Bluetooth adapter \(subject) (\(error.syscall.rawValue): ENODEV); list them with 'hcipico adapters'",
                underlying: error
            )
        case ENETDOWN:
            self.init(
                .adapterDown,
                "adapter \(subject) is down (\(error.syscall.rawValue): ENETDOWN); bring it up with 'btmgmt power on' or 'hciconfig hci0 up'",
                underlying: error
            )
        case ERFKILL:
            self.init(
                .adapterDown,
                "adapter \(subject) is blocked by rfkill; unblock it with 'rfkill unblock bluetooth'",
                underlying: error
            )
        case EBUSY where error.syscall == .connect:
            self.init(
                .busy,
                "the link to \(subject) is held by another program, usually bluetoothd (connect: EBUSY); stop it (systemctl stop bluetooth) or disconnect the device (bluetoothctl disconnect), or use --transport user:hciN",
                underlying: error
            )
        case EBUSY:
            self.init(
                .busy,
                "\(subject) is busy (\(error.syscall.rawValue): EBUSY): another program holds it, usually bluetoothd",
                underlying: error
            )
        case ETIMEDOUT:
            self.init(
                .timedOut,
                "\(subject) did not answer in time (\(error.syscall.rawValue): ETIMEDOUT)",
                underlying: error
            )
        case ECONNREFUSED, EHOSTUNREACH, EHOSTDOWN, ECONNRESET, ENETUNREACH:
            self.init(
                .refused,
                "\(subject) could not be reached (\(error.syscall.rawValue): \(error.errnoName))",
                underlying: error
            )
        case EACCES:
            self.init(
                .securityFailed,
                "\(subject) refused the security level asked for (pairing or encryption failed; connect: EACCES)",
                underlying: error
            )
        default:
            self.init(.system, "\(subject): \(error)", underlying: error)
        }
    }
}
