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

    /// Writes all of `text` to `descriptor`; nil when it was written, else the `errno` that stopped it.
    /// Never traps and never raises `SIGPIPE` past the caller (`Shutdown` handles that signal).
    ///
    /// With `waitingAtMost`, it never blocks longer: before each piece it polls the descriptor for
    /// room, and writes at most `PIPE_BUF` bytes once there is room (which a pipe then takes without
    /// blocking); no room within the time gives `EAGAIN`, with part of the text perhaps written.
    static func write(_ text: String, to descriptor: Int32, waitingAtMost wait: Duration? = nil) -> Int32? {
        var text = text
        return text.withUTF8 { bytes -> Int32? in
            guard let base = bytes.baseAddress else { return nil }
            var offset = 0
            while offset < bytes.count {
                var length = bytes.count - offset
                if let wait {
                    if let failure = awaitRoom(descriptor, for: wait) { return failure }
                    length = min(length, Int(PIPE_BUF))
                }
                let written = Glibc.write(descriptor, base + offset, length)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return written < 0 ? errno : EIO }
                offset += written
            }
            return nil
        }
    }

    /// nil once `descriptor` can take a write (or has an error the write will report), `EAGAIN` when
    /// it cannot within `wait`.
    private static func awaitRoom(_ descriptor: Int32, for wait: Duration) -> Int32? {
        let (seconds, attoseconds) = wait.components
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready == 0 ? EAGAIN : nil
        }
    }
}
