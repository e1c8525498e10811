import Foundation
public import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal in raw mode for programs that expect a serial port: the bridge holds the master
/// side, the program opens `path`. The bridge also keeps the slave side open, so that the master does
/// not report EIO between programs opening and closing the port. Descriptors are swift-system's; the
/// pty calls and termios, which it does not offer, are made directly.
public struct PseudoTerminal: Sendable {
    /// The side the bridge reads and writes.
    public let master: FileDescriptor
    /// The side a program opens (`/dev/pts/N`).
    public let path: String
    private let slave: FileDescriptor

    /// Why no pseudo-terminal could be made.
    public struct Failure: Error, CustomStringConvertible {
        /// The call that failed, and why.
        public let description: String
    }

    /// posix_openpt, grantpt, unlockpt and ptsname_r, looked up in the C library at run time: Swift's
    /// Glibc module leaves them out (they need _XOPEN_SOURCE).
    private struct Functions {
        let openpt: @convention(c) (Int32) -> Int32
        let grantpt: @convention(c) (Int32) -> Int32
        let unlockpt: @convention(c) (Int32) -> Int32
        let ptsname: @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

        init() throws(Failure) {
            let library = dlopen(nil, RTLD_NOW)
            func find<F>(_ name: String, as type: F.Type) throws(Failure) -> F {
                guard let symbol = dlsym(library, name) else {
                    throw Failure(description: "no \(name) in the C library")
                }
                return unsafeBitCast(symbol, to: type)
            }
            openpt = try find("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
            grantpt = try find("grantpt", as: (@convention(c) (Int32) -> Int32).self)
            unlockpt = try find("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
            ptsname = try find(
                "ptsname_r",
                as: (@convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32).self
            )
        }
    }

    /// Opens a pseudo-terminal in raw mode.
    public init() throws(Failure) {
        let functions = try Functions()
        let raw = functions.openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard raw >= 0 else { throw Failure(description: "posix_openpt: \(Errno(rawValue: errno))") }
        let master = FileDescriptor(rawValue: raw)
        guard functions.grantpt(raw) == 0, functions.unlockpt(raw) == 0 else {
            let reason = Errno(rawValue: errno)
            try? master.close()
            throw Failure(description: "grantpt/unlockpt: \(reason)")
        }
        var name = [CChar](repeating: 0, count: 128)
        guard functions.ptsname(raw, &name, name.count) == 0 else {
            try? master.close()
            throw Failure(description: "ptsname_r failed")
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave: FileDescriptor
        do {
            // O_NOCTTY has no name in swift-system: it is given by value.
            let options: FileDescriptor.OpenOptions = [.closeOnExec, .init(rawValue: O_NOCTTY)]
            slave = try FileDescriptor.open(FilePath(path), .readWrite, options: options)
        } catch {
            try? master.close()
            throw Failure(description: "\(path): \(error)")
        }
        var settings = termios()
        tcgetattr(slave.rawValue, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave.rawValue, TCSANOW, &settings)
        self.master = master
        self.path = path
        self.slave = slave
    }

    /// Closes both sides.
    public func close() {
        try? slave.close()
        try? master.close()
    }
}
