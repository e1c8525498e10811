import Coordination
import Synchronization

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
struct StandardError: TextOutputStream {
    /// Writes to standard error that failed and were dropped, since the process started.
    static let dropped = Atomic<Int>(0)
    /// How long a write waits for a full standard error to take text before the text is dropped.
    static let patience: Duration = .milliseconds(250)
    /// Set while standard error is not taking text: the next write does not wait for it.
    private static let stalled = Atomic<Bool>(false)

    mutating func write(_ string: String) {
        Self.write(string)
    }

    /// Writes `text` whole (retrying interrupted and partial writes), or drops and counts it.
    static func write(_ text: String) {
        let wait = stalled.load(ordering: .relaxed) ? Duration.zero : patience
        let failure = StandardStream.write(text, to: 2, waitingAtMost: wait)
        stalled.store(failure == EAGAIN, ordering: .relaxed)
        if failure != nil { dropped.add(1, ordering: .relaxed) }
    }

    /// Prints one `hcipico: …` line to standard error.
    static func report(_ message: String) {
        write("hcipico: \(message)\n")
    }
}

/// The one place that writes to a standard stream with `write(2)`.
enum StandardStream {
    /// The first error a write to standard output met other than a reader that left (`ENOSPC`,
    /// `EIO`): the command's result did not reach its output, so it must not exit 0.
    static let outputError = Atomic<Int32>(0)

    /// Records a failed write to standard output (reported once, on standard error).
    static func outputFailed(errno error: Int32) {
        if outputError.compareExchange(expected: 0, desired: error, ordering: .relaxed).exchanged {
            StandardError.report("standard output: write failed: \(String(cString: strerror(error)))")
        }
    }

    /// After a command that succeeded: flushes what `print` buffered and gives the error, if any,
    /// that standard output met (then the process exits 6, an output that could not be written).
    static func finalOutputError() -> Int32? {
        if fflush(nil) != 0 { outputFailed(errno: errno == 0 ? EIO : errno) }
        let error = outputError.load(ordering: .relaxed)
        return error == 0 || error == EPIPE ? nil : error
    }

    /// Writes all of `text` to `descriptor`; nil when it was written, else the `errno` that stopped it
    /// (`ByteStream.write(_:waitingAtMost:)`).
    static func write(_ text: String, to descriptor: Int32, waitingAtMost wait: Duration? = nil) -> Int32? {
        var text = text
        return text.withUTF8 { bytes in
            ByteStream(descriptor: descriptor).write(UnsafeRawBufferPointer(bytes), waitingAtMost: wait)
        }
    }
}
