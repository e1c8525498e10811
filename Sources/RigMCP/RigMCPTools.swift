import Coordination
import Foundation
import MCP
import RigClient

/// The tools an agent has (see `RigMCPServer`), each one or a few API calls, answered with the API's
/// own JSON; an API error comes back as the tool's error with the rig's words.
struct RigMCPTools: Sendable {
    let client: RigAPIClient

    /// How often a run that a tool waits for is looked at.
    static let look: Duration = .milliseconds(250)

    static let all: [Tool] = [
        Tool(
            name: "list_devices",
            description:
                "The rig's instruments: where each stands, whether its schedule is paused, what it has queued.",
            inputSchema: .object(["type": "object", "properties": .object([:])])
        ),
        Tool(
            name: "list_methods",
            description: "The electrochemical techniques (cv, dpv, swv, ca, eis, …) and their parameters in SI units.",
            inputSchema: .object(["type": "object", "properties": .object([:])])
        ),
        Tool(
            name: "run_method",
            description:
                "Queue a technique with its parameters on a device and, unless wait is false, wait for the run to end and return its results (peaks, circuit fits). Needs the control token.",
            inputSchema: .object([
                "type": "object",
                "properties": .object([
                    "device": .object(["type": "string", "description": "the device's name (list_devices)"]),
                    "technique": .object(["type": "string", "description": "cv, dpv, swv, … (list_methods)"]),
                    "parameters": .object([
                        "type": "object", "description": "the technique's parameters by key, in V, s, V/s, Hz, A",
                    ]),
                    "priority": .object(["type": "integer", "description": "higher runs first; 0 by default"]),
                    "title": .object(["type": "string"]),
                    "wait": .object(["type": "boolean", "description": "wait for the end (default true)"]),
                    "timeout_seconds": .object(["type": "number", "description": "how long to wait (default 600)"]),
                ]),
                "required": .array(["device", "technique"]),
            ])
        ),
        Tool(
            name: "run_script",
            description:
                "Queue a MethodSCRIPT on a device (checked first) and, unless wait is false, wait for its end and results.",
            inputSchema: .object([
                "type": "object",
                "properties": .object([
                    "device": .object(["type": "string"]),
                    "script": .object(["type": "string", "description": "the MethodSCRIPT, lines ending in \\n"]),
                    "priority": .object(["type": "integer"]),
                    "title": .object(["type": "string"]),
                    "wait": .object(["type": "boolean"]),
                    "timeout_seconds": .object(["type": "number"]),
                ]),
                "required": .array(["device", "script"]),
            ])
        ),
        Tool(
            name: "get_request",
            description: "A run request: its state, its run, why it ended.",
            inputSchema: .object([
                "type": "object", "properties": .object(["id": .object(["type": "string"])]),
                "required": .array(["id"]),
            ])
        ),
        Tool(
            name: "get_results",
            description: "A run's analysis results (peaks or a circuit fit), by the run's id.",
            inputSchema: .object([
                "type": "object", "properties": .object(["run": .object(["type": "integer"])]),
                "required": .array(["run"]),
            ])
        ),
        Tool(
            name: "cancel",
            description: "Cancel a queued request. Needs the control token.",
            inputSchema: .object([
                "type": "object", "properties": .object(["id": .object(["type": "string"])]),
                "required": .array(["id"]),
            ])
        ),
        Tool(
            name: "abort",
            description:
                "Abort the run in progress on a device (then its cell is switched off). Needs the control token.",
            inputSchema: .object([
                "type": "object", "properties": .object(["device": .object(["type": "string"])]),
                "required": .array(["device"]),
            ])
        ),
    ]

    /// The answer to a tool call.
    func call(_ name: String, _ arguments: [String: Value]) async -> CallTool.Result {
        do {
            switch name {
            case "list_devices": return try await answer("GET", "/api/devices")
            case "list_methods": return try await answer("GET", "/api/methods")
            case "run_method", "run_script":
                var order: [String: Any] = [:]
                if name == "run_method" {
                    order["technique"] = try string(arguments, "technique")
                    order["parameters"] = try numbers(arguments["parameters"])
                } else {
                    order["script"] = try string(arguments, "script")
                }
                if let priority = arguments["priority"]?.intValue { order["priority"] = priority }
                if let title = arguments["title"]?.stringValue { order["title"] = title }
                return try await run(
                    device: try string(arguments, "device"),
                    order: order,
                    wait: arguments["wait"]?.boolValue ?? true,
                    timeout: arguments["timeout_seconds"].flatMap { $0.doubleValue ?? $0.intValue.map(Double.init) }
                        ?? 600
                )
            case "get_request": return try await answer("GET", "/api/requests/\(try path(string(arguments, "id")))")
            case "get_results":
                guard let run = arguments["run"]?.intValue else { throw ToolError("run: give the run's id (a number)") }
                return try await answer("GET", "/runs/\(run)/results.json")
            case "cancel": return try await answer("DELETE", "/api/requests/\(try path(string(arguments, "id")))")
            case "abort": return try await answer("POST", "/api/devices/\(try path(string(arguments, "device")))/abort")
            default: return .init(content: [Self.text("unknown tool \(name)")], isError: true)
            }
        } catch {
            return .init(content: [Self.text("\(error)")], isError: true)
        }
    }

    /// Queues `order` on `device` and, with `wait`, follows the request to its end and adds the run's
    /// results.
    private func run(device: String, order: [String: Any], wait: Bool, timeout: Double) async throws -> CallTool.Result
    {
        let body = String(
            decoding: try JSONSerialization.data(withJSONObject: order, options: [.sortedKeys]),
            as: UTF8.self
        )
        // One key a call: a retry inside the client's own HTTP layer never queues a second run.
        let key = UUID().uuidString.lowercased()
        let submitted = try await request(
            "POST",
            "/api/devices/\(try path(device))/requests",
            body: body,
            headers: [("Idempotency-Key", key)]
        )
        guard submitted.status == 201 || submitted.status == 200 else { return failure(submitted) }
        guard wait, let id = Self.field(submitted.body, "id") as? String else {
            return .init(content: [Self.text(submitted.body)], isError: false)
        }
        let deadline = ContinuousClock.now + .seconds(timeout)
        var latest = submitted
        while ContinuousClock.now < deadline {
            latest = try await request("GET", "/api/requests/\(id)")
            guard latest.status == 200 else { return failure(latest) }
            let state = Self.field(latest.body, "state") as? String ?? ""
            if ["complete", "incomplete", "cancelled"].contains(state) {
                var text = "{\"request\": \(latest.body)"
                if let run = Self.field(latest.body, "run") as? Int {
                    let results = try await request("GET", "/runs/\(run)/results.json")
                    if results.status == 200 { text += ", \"results\": \(results.body)" }
                }
                return .init(content: [Self.text(text + "}")], isError: state != "complete")
            }
            try await Task.sleep(for: Self.look)
        }
        return .init(
            content: [
                Self.text("{\"request\": \(latest.body), \"note\": \"still not ended after \(Int(timeout)) s\"}")
            ],
            isError: true
        )
    }

    /// The latest runs' results, as resources.
    func resources() async throws -> [Resource] {
        let runs = try await request("GET", "/api/runs?limit=50")
        guard runs.status == 200,
            let list = try? JSONSerialization.jsonObject(with: Data(runs.body.utf8)) as? [[String: Any]]
        else { throw MCPError.internalError("the rig answered \(runs.status): \(runs.body.prefix(200))") }
        return list.compactMap { run in
            guard let id = run["id"] as? Int else { return nil }
            let device = run["device"] as? String ?? "?"
            let number = run["device_run"] as? Int ?? 0
            let title = run["title"] as? String ?? ""
            return Resource(
                name: "\(device) run \(number) (\(title)) results",
                uri: "hcipico://runs/\(id)/results",
                description: "the analysis of run \(id): \(run["state"] as? String ?? "")",
                mimeType: "application/json"
            )
        }
    }

    /// A resource's content: a run's results.
    func read(_ uri: String) async throws -> Resource.Content {
        let prefix = "hcipico://runs/"
        guard uri.hasPrefix(prefix), uri.hasSuffix("/results"),
            let run = Int(uri.dropFirst(prefix.count).dropLast("/results".count))
        else { throw MCPError.invalidParams("unknown resource \(uri)") }
        let results = try await request("GET", "/runs/\(run)/results.json")
        guard results.status == 200 else { throw MCPError.invalidParams("run \(run): \(results.body.prefix(200))") }
        return .text(results.body, uri: uri, mimeType: "application/json")
    }

    // MARK: Helpers

    struct ToolError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// One API call, on a thread of its own (the client blocks).
    private func request(
        _ method: String,
        _ path: String,
        body: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> RigAPIClient.Response {
        let client = client
        let result = await Threads.blocking(name: "mcp-api") {
            () -> Result<RigAPIClient.Response, RigAPIClient.Failure> in
            do throws(RigAPIClient.Failure) {
                return .success(try client.request(method, path, body: body, headers: headers))
            } catch {
                return .failure(error)
            }
        }
        guard let result else { throw CancellationError() }
        return try result.get()
    }

    private func answer(_ method: String, _ path: String) async throws -> CallTool.Result {
        let response = try await request(method, path)
        return response.status < 400 ? .init(content: [Self.text(response.body)], isError: false) : failure(response)
    }

    private func failure(_ response: RigAPIClient.Response) -> CallTool.Result {
        .init(content: [Self.text("the rig answered \(response.status): \(response.body)")], isError: true)
    }

    private func string(_ arguments: [String: Value], _ key: String) throws -> String {
        guard let value = arguments[key]?.stringValue, !value.isEmpty else { throw ToolError("\(key): missing") }
        return value
    }

    /// `value` as an object of numbers (a method's parameters).
    private func numbers(_ value: Value?) throws -> [String: Double] {
        guard let value else { return [:] }
        guard let object = value.objectValue else { throw ToolError("parameters: give an object of numbers by name") }
        var numbers: [String: Double] = [:]
        for (key, entry) in object {
            guard let number = entry.doubleValue ?? entry.intValue.map(Double.init) else {
                throw ToolError("parameters.\(key): must be a number")
            }
            numbers[key] = number
        }
        return numbers
    }

    /// `text` made safe as one path segment.
    private func path(_ text: String) throws -> String {
        guard
            let encoded = text.addingPercentEncoding(
                withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~"))
            )
        else {
            throw ToolError("\(text): not a name")
        }
        return encoded
    }

    /// A tool's text content.
    static func text(_ text: String) -> Tool.Content { .text(text: text, annotations: nil, _meta: nil) }

    static func field(_ json: String, _ key: String) -> Any? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?[key]
    }
}
