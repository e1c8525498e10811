import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for systemd's notification socket: a bound Unix datagram socket whose messages
/// (`READY=1`, `WATCHDOG=1`…) the test reads.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private var received: [String] = []

    init(in directory: URL) throws {
        path = directory.appendingPathComponent("notify").path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit { close(descriptor) }

    /// Every message so far, in order.
    var messages: [String] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received.append(String(decoding: buffer[..<count], as: UTF8.self))
        }
        return received
    }
}
