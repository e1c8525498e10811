import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension StatusConfig {
    /// Why the status server could not listen at `host`:`port` now (another program holds the port,
    /// the address is not this machine's), or nil when a socket binds there. Port 0 always binds.
    public func listenProblem() -> String? {
        guard port != 0 else { return nil }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found else {
            return "\(host): not an address of this machine (\(String(cString: gai_strerror(resolved))))"
        }
        defer { freeaddrinfo(found) }
        let socket = Glibc.socket(
            first.pointee.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0
        )
        guard socket >= 0 else { return "cannot make a socket: \(String(cString: strerror(errno)))" }
        defer { close(socket) }
        var on: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(socket, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let reason = errno == EADDRINUSE ? "in use by another program" : String(cString: strerror(errno))
            return "\(host):\(port): \(reason)"
        }
        return nil
    }
}
