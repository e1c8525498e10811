import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An output written whole, again and again while a run goes on (a plot, a PSTrace table: layouts
/// that cannot grow by appending), so that after a crash it is either absent or one whole document.
///
/// A regular file (or a new one) is replaced: the document goes to a temporary file beside it, is
/// synced, and is renamed over it, and the directory is synced. Anything else (a symlink, a FIFO, a
/// character device, standard output as `-`) is not replaceable: it gets the document once, from
/// `writeOnce`, at the end of the run.
final class ReplacedFile {
    let path: String
    /// Whether `replace` may be used: a regular file or none yet.
    let replaceable: Bool
    private let overwrite: Bool
    private var created = false

    /// `overwrite` allows replacing an existing regular file (checked again at the first replacement).
    init(path: String, overwrite: Bool) {
        self.path = path
        self.overwrite = overwrite
        var info = stat()
        if path == "-" {
            replaceable = false
        } else if lstat(path, &info) == 0 {
            replaceable = info.st_mode & S_IFMT == S_IFREG
        } else {
            replaceable = true
        }
    }

    /// Whether the first replacement would be refused: a file is there and `overwrite` was not given.
    var refusesExisting: Bool {
        var info = stat()
        return !overwrite && !created && path != "-" && lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Writes `bytes` to a new temporary file in the target's directory, syncs it, renames it over the
    /// target and syncs the directory. The first replacement refuses an existing file unless
    /// `overwrite` (another program may have made it since the run was checked).
    func replace(with bytes: some Sequence<UInt8>) throws(SinkError) {
        let directory = OutputCheck.parent(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory)/.\(name).XXXXXX".utf8CString)
        // mkstemp (which swift-system does not offer) makes the name; the rest goes through
        // `FileDescriptor` but for fchmod and fsync, which it does not offer either.
        let raw = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard raw >= 0 else { throw SinkError(path: path, operation: "create a temporary file", errno: errno) }
        let fd = FileDescriptor(rawValue: raw)
        _ = fcntl(raw, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        func fail(_ operation: String, _ code: Int32) -> SinkError {
            try? fd.close()
            unlink(temporary)
            return SinkError(path: path, operation: operation, errno: code)
        }
        do {
            _ = try fd.writeAll(bytes)
        } catch {
            throw fail("write", (error as? Errno)?.rawValue ?? EIO)
        }
        guard fchmod(raw, 0o644) == 0, fsync(raw) == 0 else { throw fail("sync", errno) }
        // The first replacement must not replace a file that appeared after the check: a hard link
        // fails if the name exists (file systems without hard links fall back to rename).
        if !overwrite && !created && link(temporary, path) == 0 {
            unlink(temporary)
        } else if !overwrite && !created && errno == EEXIST {
            throw fail("create", EEXIST)
        } else {
            guard rename(temporary, path) == 0 else { throw fail("rename", errno) }
        }
        created = true
        try? fd.close()
        let directoryOptions: FileDescriptor.OpenOptions = [.directory, .closeOnExec]
        if let directoryFD = try? FileDescriptor.open(FilePath(directory), .readOnly, options: directoryOptions) {
            _ = fsync(directoryFD.rawValue)
            try? directoryFD.close()
        }
    }

    /// Writes `bytes` into a target that is not replaceable, once, and syncs it.
    func writeOnce(_ bytes: [UInt8]) throws(SinkError) {
        let file = try SinkFile(path: path, overwrite: true)
        defer { file.close() }
        try file.write(bytes: bytes)
        try file.sync()
    }

    /// `replace` for a replaceable target, else `writeOnce`.
    func write(_ bytes: [UInt8]) throws(SinkError) {
        if replaceable { try replace(with: bytes) } else { try writeOnce(bytes) }
    }
}
