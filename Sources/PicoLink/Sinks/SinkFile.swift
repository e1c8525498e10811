import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a sink could not write.
public struct SinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file that could not be written (`-` for standard output).
    public let path: String
    /// What failed: `open`, `write`, `sync`, `rename`, `create a temporary file`…
    public let operation: String
    /// The `errno` the operation failed with.
    public let errno: Int32

    /// The failure of `operation` on `path`, with the `errno` it set.
    public init(path: String, operation: String, errno: Int32) {
        self.path = path
        self.operation = operation
        self.errno = errno
    }

    /// The failure of `operation` on `path` that swift-system threw (`Errno`; any other error counts as
    /// `EIO`).
    init(path: String, operation: String, _ error: any Error) {
        self.init(path: path, operation: operation, errno: (error as? Errno)?.rawValue ?? EIO)
    }

    /// The reader of a pipe or of standard output went away (`EPIPE`): not a fault of the disk.
    public var isOutputClosed: Bool { errno == EPIPE }

    /// `out.csv: write failed: No space left on device`; standard output is named as such.
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
///
/// File operations go through swift-system's `FileDescriptor` (open, write, resize, close); only
/// `fdatasync`, which it does not offer, is called directly.
public final class SinkFile {
    /// The path as given (`-` for standard output).
    public let path: String
    private var descriptor: FileDescriptor?
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
            descriptor = .standardOutput
            ownsDescriptor = false
            seekable = false
            return
        }
        var existing = stat()
        let exists = stat(path, &existing) == 0
        let regular = !exists || (existing.st_mode & S_IFMT) == S_IFREG
        // A FIFO is opened without blocking, so that one nobody reads fails (ENXIO) instead of hanging.
        var options: FileDescriptor.OpenOptions = [.closeOnExec]
        options.formUnion(regular ? (overwrite ? [.create, .truncate] : [.create, .exclusiveCreate]) : [.nonBlocking])
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(
                FilePath(path),
                .writeOnly,
                options: options,
                permissions: [.ownerReadWrite, .groupRead, .otherRead]
            )
        } catch {
            throw SinkError(path: path, operation: "open", error)
        }
        if !regular { _ = fcntl(file.rawValue, F_SETFL, fcntl(file.rawValue, F_GETFL) & ~O_NONBLOCK) }
        descriptor = file
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

    /// Writes all of `bytes` (short writes and EINTR retried); the error, if any.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Result<Int, SinkError> {
        guard let descriptor else { return .failure(SinkError(path: path, operation: "write", errno: EBADF)) }
        do {
            return .success(try descriptor.writeAll(bytes))
        } catch {
            return .failure(SinkError(path: path, operation: "write", error))
        }
    }

    private func commit(_ result: Result<Int, SinkError>) throws(SinkError) {
        switch result {
        case .failure(let error):
            // Cut back whatever part of the record went out.
            if seekable { _ = try? descriptor?.resize(to: Int64(committed)) }
            throw error
        case .success(let written):
            committed += off_t(written)
            dirty = true
        }
    }

    /// Flushes what was written to the device (`fdatasync`); a no-op for pipes and terminals.
    public func sync() throws(SinkError) {
        guard dirty, let descriptor else { return }
        dirty = false
        guard fdatasync(descriptor.rawValue) == 0 else {
            if errno == EINVAL || errno == EROFS { return }  // pipes, terminals, character devices
            throw SinkError(path: path, operation: "sync", errno: errno)
        }
    }

    /// Closes the file (standard output stays open). Idempotent.
    public func close() {
        if ownsDescriptor { try? descriptor?.close() }
        descriptor = nil
    }

    deinit { close() }
}
