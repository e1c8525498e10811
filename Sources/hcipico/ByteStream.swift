import Coordination
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor the serial bridge reads from (a thread, one chunk at a time) and writes to (whole
/// buffers, unbuffered), for standard input/output and a pseudo-terminal alike.
struct ByteStream: Sendable {
    let descriptor: Int32

    /// Writes all of `bytes` (retrying on EINTR and partial writes); false if the descriptor failed.
    @discardableResult
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// What the reading thread reports.
    enum Event: Sendable {
        case data([UInt8])
        case end
    }

    /// Starts a thread that reads chunks of up to `chunkSize` bytes and yields them; it reads the next
    /// one only after the consumer calls the returned `next` (so a fast producer never outruns the link).
    func reader(chunkSize: Int = 4096) -> (events: AsyncStream<Event>, next: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        let permit = DispatchSemaphore(value: 0)
        let descriptor = self.descriptor
        Threads.start(name: "serial-input") {
            var buffer = [UInt8](repeating: 0, count: chunkSize)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, chunkSize) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    continuation.yield(.end)
                    continuation.finish()
                    return
                }
                continuation.yield(.data(Array(buffer[0..<count])))
                permit.wait()
            }
        }
        return (stream, { permit.signal() })
    }
}
