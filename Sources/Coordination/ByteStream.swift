#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor read a chunk at a time (each read on a thread of its own, as all blocking input is
/// read) and written whole buffers at a time, unbuffered: standard input/output and a pseudo-terminal
/// alike.
public struct ByteStream: Sendable {
    public let descriptor: Int32

    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Writes all of `bytes` (retrying on EINTR and partial writes); false if the descriptor failed.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
