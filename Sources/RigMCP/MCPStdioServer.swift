import Foundation
import Glibc

/// The Model Context Protocol's stdio transport and its JSON-RPC 2.0 framing, for a server: one JSON
/// message a line on standard input, answers a line each on standard output, notifications unanswered.
/// It speaks the protocol's lifecycle (`initialize`, `notifications/initialized`, `ping`) itself and
/// hands `tools/list`, `tools/call`, `resources/list` and `resources/read` to its `Handler`. Blocking:
/// it runs on a thread of its own until its input ends or its output is closed.
///
/// Written here rather than taken from the MCP Swift SDK, whose HTTP transports link FoundationNetworking
/// (and so libcurl) into every binary that imports it, the packaged rig daemon among them.
struct MCPStdioServer {
    /// What the server offers beyond the lifecycle.
    protocol Handler {
        /// `tools/list`'s tools (name, description, inputSchema).
        var tools: [[String: Any]] { get }
        /// `tools/call`: the text it answers, and whether that is an error.
        func call(tool: String, arguments: [String: Any]) -> (text: String, isError: Bool)
        /// `resources/list`'s resources (uri, name, description, mimeType).
        func resources() throws -> [[String: Any]]
        /// `resources/read`: the resource's JSON text.
        func read(uri: String) throws -> String
    }

    /// A request the handler refuses, as a JSON-RPC error.
    struct Refusal: Error {
        let code: Int
        let message: String
        static func invalidParams(_ message: String) -> Refusal { Refusal(code: -32602, message: message) }
        static func internalError(_ message: String) -> Refusal { Refusal(code: -32603, message: message) }
    }

    /// The protocol versions this server speaks; it answers with the client's when it is one of them.
    static let versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]

    let name: String
    let version: String
    let handler: any Handler
    let input: CInt
    let output: CInt

    init(name: String, version: String, handler: any Handler, input: CInt = 0, output: CInt = 1) {
        self.name = name
        self.version = version
        self.handler = handler
        self.input = input
        self.output = output
    }

    /// Serves until standard input ends (true) or standard output is closed (false).
    func serve() -> Bool {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if let answer = answer(line), !send(answer) { return false }
            }
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                if !pending.isEmpty, let answer = answer(pending) { _ = send(answer) }
                return true
            }
            pending += buffer[..<count]
        }
    }

    /// The answer to one message (nil for a notification or a blank line).
    func answer(_ line: [UInt8]) -> [String: Any]? {
        guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { return nil }
        guard let message = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            return Self.error(id: NSNull(), code: -32700, message: "not a JSON-RPC message")
        }
        guard let method = message["method"] as? String else {
            return message["id"].map { Self.error(id: $0, code: -32600, message: "no method") }
        }
        // A notification has no id and gets no answer.
        guard let id = message["id"] else { return nil }
        let params = message["params"] as? [String: Any] ?? [:]
        do {
            return ["jsonrpc": "2.0", "id": id, "result": try result(method, params)]
        } catch let refusal as Refusal {
            return Self.error(id: id, code: refusal.code, message: refusal.message)
        } catch {
            return Self.error(id: id, code: -32603, message: "\(error)")
        }
    }

    private func result(_ method: String, _ params: [String: Any]) throws -> [String: Any] {
        switch method {
        case "initialize":
            let asked = params["protocolVersion"] as? String ?? ""
            return [
                "protocolVersion": Self.versions.contains(asked) ? asked : Self.versions[2],
                "capabilities": [
                    "tools": ["listChanged": false], "resources": ["subscribe": false, "listChanged": false],
                ],
                "serverInfo": ["name": name, "version": version],
            ]
        case "ping":
            return [:]
        case "tools/list":
            return ["tools": handler.tools]
        case "tools/call":
            guard let tool = params["name"] as? String else { throw Refusal.invalidParams("tools/call: no name") }
            let (text, isError) = handler.call(tool: tool, arguments: params["arguments"] as? [String: Any] ?? [:])
            return ["content": [["type": "text", "text": text]], "isError": isError]
        case "resources/list":
            return ["resources": try handler.resources()]
        case "resources/read":
            guard let uri = params["uri"] as? String else { throw Refusal.invalidParams("resources/read: no uri") }
            return ["contents": [["uri": uri, "mimeType": "application/json", "text": try handler.read(uri: uri)]]]
        default:
            throw Refusal(code: -32601, message: "no method \(method)")
        }
    }

    static func error(id: Any, code: Int, message: String) -> [String: Any] {
        ["jsonrpc": "2.0", "id": id, "error": ["code": code, "message": message]]
    }

    /// Writes `message` as one line; false when the output is gone.
    private func send(_ message: [String: Any]) -> Bool {
        guard var data = try? JSONSerialization.data(withJSONObject: message, options: [.withoutEscapingSlashes])
        else { return true }
        data.append(0x0A)
        return data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(output, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
