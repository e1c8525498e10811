#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor read a chunk at a time (each read on a thread of its own, as all blocking input is
/// read) and written whole buffers at a time, unbuffered: standard input/output and a pseudo-terminal
/// alike.
public struct ByteStream: Sendable {
    /// The file descriptor read and written.
    public let descriptor: Int32

    /// A stream on `descriptor` (which the caller keeps open, and closes).
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Writes all of `bytes` (retrying on EINTR and partial writes); false if the descriptor failed.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool { write(bytes, waitingAtMost: nil) == nil }

    /// Writes all of `bytes`; nil when they were written, else the `errno` that stopped it. Never traps
    /// and never raises `SIGPIPE` past the caller (the program's stop path handles that signal).
    ///
    /// With `waitingAtMost`, it never blocks longer: before each piece it polls the descriptor for
    /// room, and writes at most `PIPE_BUF` bytes once there is room (which a pipe then takes without
    /// blocking); no room within the time gives `EAGAIN`, with part of the bytes perhaps written.
    public func write(_ bytes: UnsafeRawBufferPointer, waitingAtMost wait: Duration?) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            var length = bytes.count - offset
            if let wait {
                if let failure = awaitRoom(for: wait) { return failure }
                length = min(length, Int(PIPE_BUF))
            }
            let written = Glibc.write(descriptor, base + offset, length)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return written < 0 ? errno : EIO }
            offset += written
        }
        return nil
    }

    /// nil once the descriptor can take a write (or has an error the write will report), `EAGAIN` when
    /// it cannot within `wait`.
    private func awaitRoom(for wait: Duration) -> Int32? {
        let (seconds, attoseconds) = wait.components
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready == 0 ? EAGAIN : nil
        }
    }

    /// Reads what is there, up to `limit` bytes, on a thread of its own (`Threads.blocking`): the bytes
    /// read, or nil at the end of the input, on an error, or when the calling task is cancelled.
    public func read(upTo limit: Int = 4096) async -> [UInt8]? {
        let descriptor = self.descriptor
        return await Threads.blocking(name: "input") { () -> [UInt8]? in
            var buffer = [UInt8](repeating: 0, count: limit)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, limit) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return nil }
                return Array(buffer[0..<count])
            }
        } ?? nil
    }
}
