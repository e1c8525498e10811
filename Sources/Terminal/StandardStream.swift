public import Coordination
public import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The one place that writes to a standard stream with `write(2)`.
public enum StandardStream {
    /// The first error a write to standard output met other than a reader that left (`ENOSPC`,
    /// `EIO`): the command's result did not reach its output, so it must not exit 0.
    public static let outputError = Atomic<Int32>(0)

    /// Records a failed write to standard output (reported once, on standard error).
    public static func outputFailed(errno error: Int32) {
        if outputError.compareExchange(expected: 0, desired: error, ordering: .relaxed).exchanged {
            StandardError.report("standard output: write failed: \(String(cString: strerror(error)))")
        }
    }

    /// A failed write of the command's output: a reader that left (`EPIPE`) stops the command through
    /// `stop` (it ends as a closed output), any other error is recorded as ``outputFailed(errno:)``.
    public static func outputFailed(errno error: Int32, stop: Shutdown) {
        if error == EPIPE { stop.stop(.outputClosed) } else { outputFailed(errno: error) }
    }

    /// After a command that succeeded: flushes what `print` buffered and gives the error, if any,
    /// that standard output met (then the command has not succeeded: its output could not be written).
    public static func finalOutputError() -> Int32? {
        if fflush(nil) != 0 { outputFailed(errno: errno == 0 ? EIO : errno) }
        let error = outputError.load(ordering: .relaxed)
        return error == 0 || error == EPIPE ? nil : error
    }

    /// Writes all of `text` to `descriptor`; nil when it was written, else the `errno` that stopped it
    /// (`ByteStream.write(_:waitingAtMost:)`).
    public static func write(_ text: String, to descriptor: Int32, waitingAtMost wait: Duration? = nil) -> Int32? {
        var text = text
        return text.withUTF8 { bytes in
            ByteStream(descriptor: descriptor).write(UnsafeRawBufferPointer(bytes), waitingAtMost: wait)
        }
    }
}
