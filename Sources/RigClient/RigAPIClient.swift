import Foundation
import Glibc

/// A blocking HTTP/1.1 client of a rig's API on a plain socket (loopback or a lab network, no TLS): one
/// request a connection (`Connection: close`), and an event stream read as its bytes arrive. `hcipico
/// mcp` talks to its rig through it (each call on a thread of its own), and `Bench api` times the API.
public struct RigAPIClient: Sendable {
    public let host: String
    public let port: Int
    /// Sent as `Authorization: Bearer TOKEN` (nil: no token).
    public let token: String?

    public init(host: String = "127.0.0.1", port: Int, token: String?) {
        self.host = host
        self.port = port
        self.token = token
    }

    /// The client for `url` (`http://HOST:PORT`, the status server's address).
    public init(url: String, token: String?) throws(Failure) {
        guard url.hasPrefix("http://") else { throw Failure(description: "\(url): only http://HOST:PORT is supported") }
        let rest = url.dropFirst("http://".count).split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]), port > 0,
            port < 65_536
        else { throw Failure(description: "\(url): give the port, as in http://127.0.0.1:9464") }
        var host = String(rest[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        self.init(host: host, port: port, token: token)
    }

    /// Why a call failed: the rig cannot be reached, or did not answer as HTTP.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A response: the status and the body (chunks joined).
    public struct Response: Sendable {
        public let status: Int
        public let body: String
    }

    /// Opens a connection and sends `method path` with `body` (JSON) and `headers`; returns the socket,
    /// which the caller closes.
    public func send(
        _ method: String,
        _ path: String,
        body: String? = nil,
        headers: [(String, String)] = []
    ) throws(Failure) -> CInt {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw Failure(description: "\(host) is not an IPv4 address")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "cannot reach the rig at \(host):\(port): \(String(cString: strerror(errno)))")
        }
        var one: CInt = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
        let bytes = Array(body?.utf8 ?? "".utf8)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        head += "Connection: close\r\nContent-Length: \(bytes.count)\r\n"
        if body != nil { head += "Content-Type: application/json\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
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

    /// A whole response (the connection closes after it).
    public func request(
        _ method: String,
        _ path: String,
        body: String? = nil,
        headers: [(String, String)] = []
    ) throws(Failure) -> Response {
        let fd = try send(method, path, body: body, headers: headers)
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
        return Response(status: status, body: body)
    }

    /// Reads `fd`'s stream until `marker` has come; returns when, and everything read.
    public static func readUntil(
        _ fd: CInt,
        _ marker: String,
        seen: inout [UInt8]
    ) throws(Failure) -> ContinuousClock.Instant {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let pattern = Array(marker.utf8)
        var searchFrom = 0
        while true {
            if find(pattern, in: seen, from: searchFrom) != nil { return .now }
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
            if bytes[index] == pattern[0], bytes[index..<index + pattern.count].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }

    /// A chunked body joined.
    public static func unchunked(_ body: String) -> String {
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
