import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Standard error as a `TextOutputStream` (unbuffered: one `write(2)` per string).
///
/// A write that fails — standard error closed (`EPIPE`), full (`ENOSPC`), or any other error — drops
/// the text and counts it in `dropped`: a diagnostic that cannot be shown never ends a run or the
/// process (the run's own outputs say how it ended).
struct StandardError: TextOutputStream {
    /// Writes to standard error that failed and were dropped, since the process started.
    static let dropped = Atomic<Int>(0)

    mutating func write(_ string: String) {
        Self.write(string)
    }

    /// Writes `text` whole (retrying interrupted and partial writes), or drops and counts it.
    static func write(_ text: String) {
        if StandardStream.write(text, to: 2) != nil { dropped.add(1, ordering: .relaxed) }
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
    static func write(_ text: String, to descriptor: Int32) -> Int32? {
        var text = text
        return text.withUTF8 { bytes -> Int32? in
            guard let base = bytes.baseAddress else { return nil }
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return written < 0 ? errno : EIO }
                offset += written
            }
            return nil
        }
    }
}
