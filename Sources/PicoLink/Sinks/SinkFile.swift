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

    public init(path: String, operation: String, errno: Int32) {
        self.path = path
        self.operation = operation
        self.errno = errno
    }

    /// The reader of a pipe or of standard output went away (`EPIPE`): not a fault of the disk.
    public var isOutputClosed: Bool { errno == EPIPE }

    public var description: String {
        "\(path == "-" ? "standard output" : path): \(operation) failed: \(String(cString: strerror(errno)))"
    }
}

/// An output file that a sink appends whole records to. Each `write` goes to the kernel at once (no
/// user-space buffering), so everything written survives a crash of this process; `sync` makes it
/// survive a power cut. A record that fails part-way is cut off again (the file is truncated to the
/// end of the last whole record), so a file never ends in the middle of a line. `-` is standard output.
///
/// The file is opened as `OutputTarget` says: a new regular file is created exclusively (it must not
/// exist), an existing regular file only with `overwrite` (truncated), and a FIFO or a character
/// device is written in place.
public final class SinkFile {
    public let path: String
    private var descriptor: Int32
    private let ownsDescriptor: Bool
    /// Bytes of whole records written (meaningful for regular files, which can be cut back).
    private var committed: off_t = 0
    private let seekable: Bool
    private var dirty = false

    /// Opens `path` for writing: `-` is standard output; otherwise a new file (`O_EXCL`) unless
    /// `overwrite`, which truncates an existing regular file.
    public init(path: String, overwrite: Bool = false) throws(SinkError) {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
            ownsDescriptor = false
            seekable = false
            return
        }
        var existing = stat()
        let exists = stat(path, &existing) == 0
        let regular = !exists || (existing.st_mode & S_IFMT) == S_IFREG
        // A FIFO is opened without blocking, so that one nobody reads fails (ENXIO) instead of hanging.
        var flags = O_WRONLY | O_CLOEXEC
        flags |= regular ? (overwrite ? (O_CREAT | O_TRUNC) : (O_CREAT | O_EXCL)) : O_NONBLOCK
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw SinkError(path: path, operation: "open", errno: errno) }
        if !regular { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        descriptor = fd
        ownsDescriptor = true
        seekable = regular
    }

    /// Writes all of `text` (UTF-8) as one record, retrying short writes and EINTR. On failure the file
    /// is cut back to the end of the previous record.
    public func write(_ text: String) throws(SinkError) {
        var text = text
        let result = text.withUTF8 { writeAll(UnsafeRawBufferPointer($0)) }
        try commit(result)
    }

    /// Writes `bytes` as one record, as `write(_:)` does (for encodings other than UTF-8).
    public func write(bytes: [UInt8]) throws(SinkError) {
        let result = bytes.withUnsafeBytes { writeAll($0) }
        try commit(result)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> (errno: Int32, written: Int) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return (errno, offset)
            }
            offset += written
        }
        return (0, offset)
    }

    private func commit(_ result: (errno: Int32, written: Int)) throws(SinkError) {
        if result.errno != 0 {
            if seekable && result.written > 0 { _ = ftruncate(descriptor, committed) }
            throw SinkError(path: path, operation: "write", errno: result.errno)
        }
        committed += off_t(result.written)
        dirty = true
    }

    /// Flushes what was written to the device (`fdatasync`); a no-op for pipes and terminals.
    public func sync() throws(SinkError) {
        guard dirty, descriptor >= 0 else { return }
        dirty = false
        guard fdatasync(descriptor) == 0 else {
            if errno == EINVAL || errno == EROFS { return }  // pipes, terminals, character devices
            throw SinkError(path: path, operation: "sync", errno: errno)
        }
    }

    /// Closes the file (standard output stays open). Idempotent.
    public func close() {
        if ownsDescriptor && descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
