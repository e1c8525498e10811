import Glibc
import Synchronization

/// A TCP socket on 127.0.0.1 at a port the kernel picks, held until `close()` (a test calls it in a
/// `defer`, which also keeps the port held to the test's end): listening, a port that is taken (and
/// accepts connections nobody answers); not listening, a port a connect is refused on.
public final class LoopbackPort: Sendable {
    /// The port the kernel picked.
    public let port: Int
    private let descriptor: Atomic<Int32>

    /// Why no port could be held.
    public struct Failure: Error, CustomStringConvertible {
        /// `errno` of the call that failed.
        public let errno: Int32
        /// What failed, with the system's words for `errno`.
        public var description: String { "no loopback port: \(String(cString: strerror(errno)))" }
    }

    /// Binds (and with `listening`, listens on) a port of 127.0.0.1.
    public init(listening: Bool) throws(Failure) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let held = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && (!listening || listen(descriptor, 1) == 0)
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard held else {
            let failure = Failure(errno: errno)
            Glibc.close(descriptor)
            throw failure
        }
        self.descriptor = Atomic(descriptor)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Lets the port go; calling it again does nothing.
    public func close() {
        let held = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if held >= 0 { Glibc.close(held) }
    }

    deinit { close() }
}
