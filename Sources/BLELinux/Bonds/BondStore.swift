public import BLEHost
public import BLEWire
internal import Foundation
internal import Glibc

/// The bonds of one controller (or adapter), kept in one JSON file named after its address, mode 0600.
/// A file that its group or others could read is refused, not used: it holds long-term keys. Every
/// change is written to a new file, synced and renamed over the old one, so a crash leaves either.
/// A change reads, changes and writes the file under an exclusive `flock` of `FILE.lock`, so that
/// devices pairing at once on one controller (a rig's), in one process or in several, keep every bond.
public struct BondStore: Sendable {
    /// Why the store cannot be read or written.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The file or directory concerned, then what went wrong with it.
        public let description: String
    }

    /// The store's file, `DIRECTORY/AA-BB-CC-DD-EE-FF.json`, named after `controller`.
    public let path: String
    /// The controller (or adapter) whose bonds the file holds; its address is also written into the file.
    public let controller: BluetoothAddress

    /// The store of `controller` in `directory` (created 0700 on the first write).
    public init(directory: String, controller: BluetoothAddress) {
        self.controller = controller
        path = directory + "/" + controller.description.replacingOccurrences(of: ":", with: "-") + ".json"
    }

    /// The directory bonds live in: `$HCIPICO_BONDS`, else /var/lib/hcipico/bonds for root, else
    /// `$XDG_STATE_HOME/hcipico/bonds` (default ~/.local/state/hcipico/bonds).
    public static var defaultDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = environment["HCIPICO_BONDS"], !chosen.isEmpty { return chosen }
        if geteuid() == 0 { return "/var/lib/hcipico/bonds" }
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? ".") + "/.local/state"
        return state + "/hcipico/bonds"
    }

    /// Every bond in the file (none when there is no file yet).
    public func load() throws(Failure) -> [SecurityBond] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return [] }
            throw Failure(description: "\(path): cannot read the bond store: \(String(cString: strerror(errno)))")
        }
        if status.st_mode & 0o077 != 0 {
            throw Failure(
                description: "\(path): the bond store is readable by group or others (mode "
                    + String(status.st_mode & 0o777, radix: 8) + "); it holds long-term keys: chmod 600 \(path)"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "\(path): cannot read the bond store")
        }
        return try BondFile.decode(data, path: path)
    }

    /// The bond for `peer` (by the address it connects at, or its identity address), if any.
    public func bond(for peer: BluetoothAddress) throws(Failure) -> SecurityBond? {
        try load().first { $0.peer.value == peer.value || $0.identityAddress?.value == peer.value }
    }

    /// Adds `bond`, replacing any earlier bond with the same peer or, when both have one, the same
    /// identity address (a device that paired again from a new private address).
    public func save(_ bond: SecurityBond) throws(Failure) {
        try makeDirectory()
        try exclusively { () throws(Failure) in
            var bonds = try load().filter { earlier in
                earlier.peer.value != bond.peer.value
                    && (bond.identityAddress == nil || earlier.identityAddress?.value != bond.identityAddress?.value)
            }
            bonds.append(bond)
            try write(bonds)
        }
    }

    /// Forgets the bond with `peer`; false when there was none.
    @discardableResult
    public func remove(_ peer: BluetoothAddress) throws(Failure) -> Bool {
        guard try !load().isEmpty else { return false }  // no file (nor folder) is made to remove nothing
        return try exclusively { () throws(Failure) in
            let bonds = try load()
            let kept = bonds.filter { $0.peer.value != peer.value && $0.identityAddress?.value != peer.value }
            guard kept.count != bonds.count else { return false }
            try write(kept)
            return true
        }
    }

    private var directory: String { (path as NSString).deletingLastPathComponent }

    /// Runs `body` holding an exclusive `flock` of `FILE.lock` (made 0600 beside the file if missing).
    /// Separate opens of it exclude each other, between threads of one process as between processes;
    /// closing the descriptor ends the lock, as does the end of a process that dies holding it.
    private func exclusively<Value>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot open the lock of", lockPath) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw failure("cannot lock", lockPath) }
        }
        return try body()
    }

    private func makeDirectory() throws(Failure) {
        if mkdir(directory, 0o700) != 0, errno == ENOENT {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw Failure(description: "\(directory): cannot create the bond directory: \(error)")
            }
        }
    }

    /// Replaces the file with `bonds` (under the lock: `.new` is the one writer's).
    private func write(_ bonds: [SecurityBond]) throws(Failure) {
        let bytes = Array(BondFile.encode(bonds, controller: controller))
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot write", temporary) }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { throw failure("cannot set mode 0600 on", temporary) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw failure("cannot write", temporary) }
            offset += written
        }
        guard fsync(descriptor) == 0 else { throw failure("cannot sync", temporary) }
        guard rename(temporary, path) == 0 else { throw failure("cannot replace", path) }
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    private func failure(_ what: String, _ file: String) -> Failure {
        Failure(description: "\(file): \(what) the bond store: \(String(cString: strerror(errno)))")
    }
}
