#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Checks every file a run will write, and every file it reads, before anything is opened or any
/// socket is: an existing regular file is not replaced unless `overwrite`; a directory, a block device
/// or a missing or read-only directory is refused; no output may be the same file as an input or as
/// another output (compared by device and inode, so `./a.csv`, `a.csv` and a symlink to it are one).
/// `-` is standard output, the same file as `/dev/stdout`.
public enum OutputCheck {
    /// A file named by an option: `--csv out.csv`.
    public struct Named: Sendable, Equatable {
        /// The option that names the file, e.g. `--csv`; messages start with it.
        public var option: String
        /// The path as given (`-` for standard output).
        public var path: String

        /// The file `path` named by `option`: `Named("--csv", "out.csv")`.
        public init(_ option: String, _ path: String) {
            self.option = option
            self.path = path
        }
    }

    /// Why a file was refused, as `--csv out.csv: exists; give --overwrite to replace it`.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The file refused.
        public let file: Named
        /// Why, e.g. `exists; give --overwrite to replace it`.
        public let message: String

        /// The option, the path and why: `--csv out.csv: is a directory`.
        public var description: String { "\(file.option) \(file.path): \(message)" }
    }

    /// Throws the first problem found, outputs in the order given.
    public static func check(outputs: [Named], inputs: [Named] = [], overwrite: Bool) throws(Problem) {
        var seen: [(Named, Identity)] = []
        for input in inputs {
            if let identity = Identity(of: input.path) { seen.append((input, identity)) }
        }
        for output in outputs {
            try checkKind(output, overwrite: overwrite)
            guard let identity = Identity(of: output.path) else {
                throw Problem(file: output, message: "cannot be reached: \(String(cString: strerror(errno)))")
            }
            if let (other, _) = seen.first(where: { $0.1 == identity }) {
                let same = other.path == output.path ? "" : " (\(other.path))"
                throw Problem(file: output, message: "is the same file as \(other.option)\(same)")
            }
            seen.append((output, identity))
        }
    }

    /// The path may be written: a new file in a writable directory, an existing regular file with
    /// `overwrite`, or a FIFO, character device or socket (written in place).
    private static func checkKind(_ output: Named, overwrite: Bool) throws(Problem) {
        let path = output.path
        if path == "-" { return }
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT else {
                throw Problem(file: output, message: "cannot be reached: \(String(cString: strerror(errno)))")
            }
            let directory = parent(of: path)
            var parentInfo = stat()
            guard stat(directory, &parentInfo) == 0, parentInfo.st_mode & S_IFMT == S_IFDIR else {
                throw Problem(file: output, message: "its directory \(directory) does not exist")
            }
            guard access(directory, W_OK) == 0 else {
                throw Problem(file: output, message: "its directory \(directory) is not writable")
            }
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard overwrite else { throw Problem(file: output, message: "exists; give --overwrite to replace it") }
            guard access(path, W_OK) == 0 else { throw Problem(file: output, message: "is not writable") }
        case S_IFDIR: throw Problem(file: output, message: "is a directory")
        case S_IFBLK: throw Problem(file: output, message: "is a block device")
        default:
            guard access(path, W_OK) == 0 else { throw Problem(file: output, message: "is not writable") }
        }
    }

    /// Whether `path` is standard output: `-`, or the same file as descriptor 1 (`/dev/stdout`).
    public static func isStandardOutput(_ path: String) -> Bool {
        if path == "-" { return true }
        guard let named = Identity(of: path), named.name == nil else { return false }
        return named == Identity(of: "-")
    }

    /// The directory part of `path` (`.` for a bare name).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// What a path names: an existing file's device and inode (symlinks followed), or for a file yet to
    /// be made, its directory's device and inode and its name.
    struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64
        let name: String?

        init?(of path: String) {
            var info = stat()
            if path == "-" {
                guard fstat(STDOUT_FILENO, &info) == 0 else { return nil }
                name = nil
            } else if stat(path, &info) == 0 {
                name = nil
            } else {
                guard errno == ENOENT, stat(OutputCheck.parent(of: path), &info) == 0 else { return nil }
                name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
            }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }
}
