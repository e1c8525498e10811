import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal in raw mode for programs that expect a serial port: the bridge holds the master
/// side, the program opens `path`. The bridge also keeps the slave side open, so that the master does
/// not report EIO between programs opening and closing the port.
struct PseudoTerminal {
    let master: Int32
    let path: String
    private let slave: Int32

    struct Failure: Error, CustomStringConvertible {
        let description: String
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

    init() throws(Failure) {
        let functions = try Functions()
        let master = functions.openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw Failure(description: "posix_openpt: \(String(cString: strerror(errno)))") }
        guard functions.grantpt(master) == 0, functions.unlockpt(master) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(master)
            throw Failure(description: "grantpt/unlockpt: \(reason)")
        }
        var name = [CChar](repeating: 0, count: 128)
        guard functions.ptsname(master, &name, name.count) == 0 else {
            Glibc.close(master)
            throw Failure(description: "ptsname_r failed")
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(master)
            throw Failure(description: "\(path): \(reason)")
        }
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        self.master = master
        self.path = path
        self.slave = slave
    }

    func close() {
        Glibc.close(slave)
        Glibc.close(master)
    }
}
