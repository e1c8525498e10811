import Coordination
import Foundation
public import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Standard error as a `TextOutputStream` (unbuffered: one `write(2)` per string).
///
/// A write that fails — standard error closed (`EPIPE`), full (`ENOSPC`), or any other error — drops
/// the text and counts it in `dropped`: a diagnostic that cannot be shown never ends a run or the
/// process (the run's own outputs say how it ended). Nor does one ever hold them up: standard error
/// a pipe nobody reads (`2>&1 | sleep 1d`, a stopped pager) drops what does not fit once it has had
/// `patience` to drain, and then drops at once until it takes text again, so that logging never
/// stalls a measurement, a journal commit or the way out after a signal.
public struct StandardError: TextOutputStream {
    /// Writes to standard error that failed and were dropped, since the process started.
    public static let dropped = Atomic<Int>(0)
    /// How long a write waits for a full standard error to take text before the text is dropped.
    public static let patience: Duration = .milliseconds(250)
    /// Set while standard error is not taking text: the next write does not wait for it.
    private static let stalled = Atomic<Bool>(false)

    /// Standard error, for `print(_:to:)`.
    public init() {}

    /// Writes `string` as ``write(_:)-swift.type.method`` does.
    public mutating func write(_ string: String) {
        Self.write(string)
    }

    /// Writes `text` whole (retrying interrupted and partial writes), or drops and counts it.
    public static func write(_ text: String) {
        let wait = stalled.load(ordering: .relaxed) ? Duration.zero : patience
        let failure = StandardStream.write(text, to: 2, waitingAtMost: wait)
        stalled.store(failure == EAGAIN, ordering: .relaxed)
        if failure != nil { dropped.add(1, ordering: .relaxed) }
    }

    /// The name a report starts with: the program's (`hcipico`).
    public static let program = ProcessInfo.processInfo.processName

    /// Prints one `PROGRAM: …` line to standard error.
    public static func report(_ message: String) {
        write("\(program): \(message)\n")
    }
}
