import Foundation
import RigClient

/// The tools an agent has (see `RigMCPServer`), each one or a few API calls, answered with the API's
/// own JSON; an API error comes back as the tool's error with the rig's words. The calls block: the
/// server runs on a thread of its own.
struct RigMCPTools: MCPStdioServer.Handler {
    let client: RigAPIClient

    /// How often a run that a tool waits for is looked at, in seconds.
    static let look = 0.25

    private static func object(_ properties: [String: Any], required: [String] = []) -> [String: Any] {
        ["type": "object", "properties": properties, "required": required]
    }

    private static var order: [String: Any] {
        [
            "device": ["type": "string", "description": "the device's name (list_devices)"],
            "priority": ["type": "integer", "description": "higher runs first; 0 by default"],
            "title": ["type": "string", "description": "the run's title in the journal"],
            "wait": ["type": "boolean", "description": "wait for the run's end and its results (default true)"],
            "timeout_seconds": ["type": "number", "description": "how long to wait (default 600)"],
        ]
    }

    var tools: [[String: Any]] {
        Self.all
    }

    private static var all: [[String: Any]] {
        [
            [
                "name": "list_devices",
                "description":
                    "The rig's instruments: where each stands, whether its schedule is paused, what it has queued.",
                "inputSchema": object([:]),
            ],
            [
                "name": "list_methods",
                "description":
                    "The electrochemical techniques (cv, dpv, swv, ca, eis, …) and their parameters in SI units.",
                "inputSchema": object([:]),
            ],
            [
                "name": "run_method",
                "description":
                    "Queue a technique with its parameters on a device and, unless wait is false, wait for the run to end and return it with its results (peaks, circuit fits). Needs the control token.",
                "inputSchema": object(
                    Self.order.merging([
                        "technique": ["type": "string", "description": "cv, dpv, swv, … (list_methods)"],
                        "parameters": [
                            "type": "object", "description": "the technique's parameters by key, in V, s, V/s, Hz, A",
                        ],
                    ]) { first, _ in first },
                    required: ["device", "technique"]
                ),
            ],
            [
                "name": "run_script",
                "description":
                    "Queue a MethodSCRIPT on a device (checked first) and, unless wait is false, wait for its end and results. Needs the control token.",
                "inputSchema": object(
                    Self.order.merging([
                        "script": ["type": "string", "description": "the MethodSCRIPT, lines ending in \\n"]
                    ]) {
                        first,
                        _ in first
                    },
                    required: ["device", "script"]
                ),
            ],
            [
                "name": "get_request",
                "description": "A run request: its state, its run, why it ended.",
                "inputSchema": object(["id": ["type": "string"]], required: ["id"]),
            ],
            [
                "name": "get_results",
                "description": "A run's analysis results (peaks or a circuit fit), by the run's id.",
                "inputSchema": object(["run": ["type": "integer"]], required: ["run"]),
            ],
            [
                "name": "cancel",
                "description": "Cancel a queued request. Needs the control token.",
                "inputSchema": object(["id": ["type": "string"]], required: ["id"]),
            ],
            [
                "name": "abort",
                "description":
                    "Abort the run in progress on a device (its cell is then switched off). Needs the control token.",
                "inputSchema": object(["device": ["type": "string"]], required: ["device"]),
            ],
        ]
    }

    struct ToolError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func call(tool: String, arguments: [String: Any]) -> (text: String, isError: Bool) {
        do {
            switch tool {
            case "list_devices": return try answer("GET", "/api/devices")
            case "list_methods": return try answer("GET", "/api/methods")
            case "run_method", "run_script":
                var order: [String: Any] = [:]
                if tool == "run_method" {
                    order["technique"] = try string(arguments, "technique")
                    if let parameters = arguments["parameters"] {
                        guard parameters is [String: Any] else {
                            throw ToolError("parameters: give an object of numbers by name")
                        }
                        order["parameters"] = parameters
                    }
                } else {
                    order["script"] = try string(arguments, "script")
                }
                if let priority = arguments["priority"] { order["priority"] = priority }
                if let title = arguments["title"] { order["title"] = title }
                return try run(
                    device: try string(arguments, "device"),
                    order: order,
                    wait: arguments["wait"] as? Bool ?? true,
                    timeout: (arguments["timeout_seconds"] as? NSNumber)?.doubleValue ?? 600
                )
            case "get_request": return try answer("GET", "/api/requests/\(try segment(string(arguments, "id")))")
            case "get_results":
                guard let run = (arguments["run"] as? NSNumber)?.intValue else {
                    throw ToolError("run: give the run's id (a number)")
                }
                return try answer("GET", "/runs/\(run)/results.json")
            case "cancel": return try answer("DELETE", "/api/requests/\(try segment(string(arguments, "id")))")
            case "abort": return try answer("POST", "/api/devices/\(try segment(string(arguments, "device")))/abort")
            default: return ("unknown tool \(tool)", true)
            }
        } catch {
            return ("\(error)", true)
        }
    }

    /// Queues `order` on `device` and, with `wait`, follows the request to its end and adds the run's
    /// results.
    private func run(device: String, order: [String: Any], wait: Bool, timeout: Double) throws -> (String, Bool) {
        let body = String(
            decoding: try JSONSerialization.data(withJSONObject: order, options: [.sortedKeys]),
            as: UTF8.self
        )
        // One key a call: a retry inside the HTTP exchange never queues a second run.
        let key = UUID().uuidString.lowercased()
        let submitted = try client.request(
            "POST",
            "/api/devices/\(try segment(device))/requests",
            body: body,
            headers: [("Idempotency-Key", key)]
        )
        guard submitted.status == 201 || submitted.status == 200 else { return failure(submitted) }
        guard wait, let id = Self.field(submitted.body, "id") as? String else { return (submitted.body, false) }
        let deadline = Date().addingTimeInterval(timeout)
        var latest = submitted
        while Date() < deadline {
            latest = try client.request("GET", "/api/requests/\(id)")
            guard latest.status == 200 else { return failure(latest) }
            let state = Self.field(latest.body, "state") as? String ?? ""
            if ["complete", "incomplete", "cancelled"].contains(state) {
                var text = "{\"request\": \(latest.body)"
                if let run = (Self.field(latest.body, "run") as? NSNumber)?.intValue {
                    let results = try client.request("GET", "/runs/\(run)/results.json")
                    if results.status == 200 { text += ", \"results\": \(results.body)" }
                }
                return (text + "}", state != "complete")
            }
            Thread.sleep(forTimeInterval: Self.look)
        }
        return ("{\"request\": \(latest.body), \"note\": \"still not ended after \(Int(timeout)) s\"}", true)
    }

    /// The latest runs' results, as resources.
    func resources() throws -> [[String: Any]] {
        let runs = try client.request("GET", "/api/runs?limit=50")
        guard runs.status == 200,
            let list = try? JSONSerialization.jsonObject(with: Data(runs.body.utf8)) as? [[String: Any]]
        else { throw MCPStdioServer.Refusal.internalError("the rig answered \(runs.status): \(runs.body.prefix(200))") }
        return list.compactMap { run -> [String: Any]? in
            guard let id = (run["id"] as? NSNumber)?.intValue else { return nil }
            let device = run["device"] as? String ?? "?"
            let number = (run["device_run"] as? NSNumber)?.intValue ?? 0
            return [
                "uri": "hcipico://runs/\(id)/results",
                "name": "\(device) run \(number) (\(run["title"] as? String ?? "")) results",
                "description": "the analysis of run \(id), \(run["state"] as? String ?? "")",
                "mimeType": "application/json",
            ]
        }
    }

    /// A resource's content: a run's results.
    func read(uri: String) throws -> String {
        let prefix = "hcipico://runs/"
        guard uri.hasPrefix(prefix), uri.hasSuffix("/results"),
            let run = Int(uri.dropFirst(prefix.count).dropLast("/results".count))
        else { throw MCPStdioServer.Refusal.invalidParams("unknown resource \(uri)") }
        let results = try client.request("GET", "/runs/\(run)/results.json")
        guard results.status == 200 else {
            throw MCPStdioServer.Refusal.invalidParams("run \(run): \(results.body.prefix(200))")
        }
        return results.body
    }

    // MARK: Helpers

    private func answer(_ method: String, _ path: String) throws -> (String, Bool) {
        let response = try client.request(method, path)
        return response.status < 400 ? (response.body, false) : failure(response)
    }

    private func failure(_ response: RigAPIClient.Response) -> (String, Bool) {
        ("the rig answered \(response.status): \(response.body)", true)
    }

    private func string(_ arguments: [String: Any], _ key: String) throws -> String {
        guard let value = arguments[key] as? String, !value.isEmpty else { throw ToolError("\(key): missing") }
        return value
    }

    /// `text` made safe as one path segment.
    private func segment(_ text: String) throws -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        guard let encoded = text.addingPercentEncoding(withAllowedCharacters: allowed) else {
            throw ToolError("\(text): not a name")
        }
        return encoded
    }

    static func field(_ json: String, _ key: String) -> Any? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?[key]
    }
}
