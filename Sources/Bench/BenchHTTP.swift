import Foundation
import Glibc

/// A blocking HTTP/1.1 client on a plain socket, for timing the rig's API from outside the process:
/// one request a connection (`Connection: close`), and an event stream read as its bytes arrive.
struct BenchHTTP {
    let port: Int
    let token: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Opens a connection and sends `method path` with `body`; returns the socket.
    func send(_ method: String, _ path: String, body: String? = nil) throws -> CInt {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        var one: CInt = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
        let bytes = Array(body?.utf8 ?? "".utf8)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
        head += "Connection: close\r\nContent-Length: \(bytes.count)\r\n"
        if body != nil { head += "Content-Type: application/json\r\n" }
        let request = Array((head + "\r\n").utf8) + bytes
        var offset = 0
        while offset < request.count {
            let written = request[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else {
                close(fd)
                throw Failure(description: "write: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        return fd
    }

    /// A whole response's body (the connection closes after it).
    func request(_ method: String, _ path: String, body: String? = nil) throws -> (status: Int, body: String) {
        let fd = try send(method, path, body: body)
        defer { close(fd) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            data += buffer[..<count]
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n"), let status = Int(text.split(separator: " ").dropFirst().first ?? "")
        else { throw Failure(description: "not an HTTP response: \(text.prefix(80))") }
        var body = String(text[end.upperBound...])
        if text[..<end.lowerBound].lowercased().contains("transfer-encoding: chunked") { body = Self.unchunked(body) }
        return (status, body)
    }

    /// Reads `fd`'s stream until `marker` has come; returns when, and everything read.
    static func readUntil(_ fd: CInt, _ marker: String, seen: inout [UInt8]) throws -> ContinuousClock.Instant {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let pattern = Array(marker.utf8)
        var searchFrom = 0
        while true {
            if let found = find(pattern, in: seen, from: searchFrom) {
                _ = found
                return .now
            }
            searchFrom = max(0, seen.count - pattern.count)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "the stream ended before \(marker)") }
            seen += buffer[..<count]
        }
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var index = start
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0], Array(bytes[index..<index + pattern.count]) == pattern { return index }
            index += 1
        }
        return nil
    }

    /// A chunked body joined.
    static func unchunked(_ body: String) -> String {
        var rest = Substring(body)
        var out = ""
        while let line = rest.range(of: "\r\n"), let size = Int(rest[..<line.lowerBound], radix: 16), size > 0 {
            let start = line.upperBound
            let bytes = Array(rest[start...].utf8)
            out += String(decoding: bytes.prefix(size), as: UTF8.self)
            rest = Substring(String(decoding: bytes.dropFirst(size + 2), as: UTF8.self))
        }
        return out
    }
}
