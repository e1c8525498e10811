public import BLEHost
public import MethodSCRIPT

/// What a run reports, in the order the device sent it.
public enum PicoEvent: Sendable, Equatable {
    /// `e`: the device accepted the script and starts it.
    case accepted
    /// `M…`: measurement loop `loop` (from 1 within the run) starts.
    case loopStarted(loop: Int)
    /// `*`: the measurement loop ends.
    case loopEnded(loop: Int)
    /// `C…`: scan `scan` (from 1) of measurement loop `loop` starts.
    case scanStarted(loop: Int, scan: Int)
    /// `-`: the scan ends.
    case scanEnded(loop: Int, scan: Int)
    /// `L` / `+`: a plain loop starts or ends.
    case plainLoopStarted
    /// `+`: the plain loop ends.
    case plainLoopEnded
    /// One decoded data package.
    case package(PicoPackage)
    /// `T…`: text from `send_string`.
    case text(String)
    /// `!XXXX`: the device reports an error (the run then ends).
    case deviceError(PicoDeviceError)
    /// A reply line that breaks the grammar (kept, the run goes on).
    case malformed(String)
    /// Packages the device sent that were not queued because the consumer was too far behind (the
    /// stream's bound, see `PicoEventStream`); comes once, before `.ended`. Their indices are skipped.
    case overflowed(packages: Int)
    /// The empty line: the run is over; `aborted` when it ended because of `abort()`.
    case ended(aborted: Bool, packages: Int)
}

/// A MethodSCRIPT error reply, with the message from the generated table and the script position.
public struct PicoDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error code the device sent (`!XXXX`).
    public let code: DeviceErrorCode
    /// The line of the script as the user gave it (the device counts from the first line after `e`;
    /// this counts the text's own `e` line too, so it names the line of the file) and the column,
    /// when the device gave them.
    public let line: Int?
    /// The column in that line, as the device counts it, when it gave one.
    public let column: Int?
    /// That script line's text, when known.
    public let lineText: String?

    /// An error reply; `line`, `column` and `lineText` are nil when the device gave no script position.
    public init(code: DeviceErrorCode, line: Int?, column: Int?, lineText: String?) {
        self.code = code
        self.line = line
        self.column = column
        self.lineText = lineText
    }

    /// The table's message for `code` (`unknown error` for a code it does not list).
    public var message: String { code.message }

    /// `device error !4004: <message> at line 3, column 5: <the line>`, the position only when known.
    public var description: String {
        var text = "device error !\(code.hex): \(code.message)"
        if let line {
            text += " at line \(line)"
            if let column { text += ", column \(column)" }
            if let lineText { text += ": \(lineText)" }
        }
        return text
    }
}

/// Why a session operation failed.
public enum PicoSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link went away (before or during the operation), and why in words; every package received
    /// before is kept.
    case connectionLost(String)
    /// A GATT procedure failed.
    case gatt(GATTError)
    /// The peer has no Laird VSP service, or it lacks a characteristic.
    case notAPico(String)
    /// The script was refused before anything was sent.
    case invalidScript(PicoScriptError)
    /// Another command or run is in progress.
    case busy(String)
    /// The device did not answer in time.
    case timeout(String)
    /// The device answered with an error.
    case device(PicoDeviceError)
    /// The calling task was cancelled before the device answered.
    case cancelled

    /// The error in words for a log line, e.g. `busy: a run or command is in progress`.
    public var description: String {
        switch self {
        case .connectionLost(let reason): "connection lost: \(reason)"
        case .gatt(let error): "GATT: \(error)"
        case .notAPico(let what): "not an EmStat Pico: \(what)"
        case .invalidScript(let error): "invalid script: \(error)"
        case .busy(let what): "busy: \(what)"
        case .timeout(let what): "timeout: \(what)"
        case .device(let error): error.description
        case .cancelled: "cancelled"
        }
    }

    /// Maps a GATT failure: a closed bearer is a lost connection.
    static func from(_ error: GATTError) -> PicoSessionError {
        switch error {
        case .disconnected: return .connectionLost("\(error)")
        case .cancelled: return .cancelled
        default: return .gatt(error)
        }
    }
}
