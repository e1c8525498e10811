#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a sink could not write.
public struct SinkError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let operation: String
    public let errno: Int32

    public var description: String {
        "\(path): \(operation) failed: \(String(cString: strerror(errno)))"
    }
}

/// An output file that a sink writes whole records to. Each `write` goes to the kernel at once (no
/// user-space buffering), so everything written survives a crash of this process. `-` is standard output.
public final class SinkFile {
    public let path: String
    private var descriptor: Int32
    private let ownsDescriptor: Bool

    /// Creates (or truncates) the file at `path`, or uses standard output for `-`.
    public init(path: String) throws(SinkError) {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
            ownsDescriptor = false
            return
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SinkError(path: path, operation: "open", errno: errno) }
        descriptor = fd
        ownsDescriptor = true
    }

    /// Writes all of `text`, retrying short writes and EINTR.
    public func write(_ text: String) throws(SinkError) {
        var text = text
        let result: Int32 = text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
        if result != 0 { throw SinkError(path: path, operation: "write", errno: result) }
    }

    /// Closes the file (standard output stays open). Idempotent.
    public func close() {
        if ownsDescriptor && descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
