import Foundation
import HTTPTypes
import Hummingbird
import MethodSCRIPT
import NIOCore
import RigModel

extension StatusServer {
    /// What the API's run routes reach: the rig's queues and, with a control token, its control.
    public struct Control: Sendable {
        let rig: any RigControl
        let token: String?
        let matcher: TokenMatcher?

        /// `token`: the control token (nil: the queues can be read, but no control action is taken).
        public init(rig: any RigControl, token: String?) {
            self.rig = rig
            self.token = token
            matcher = token.map(TokenMatcher.init(token:))
        }
    }

    /// The largest request body the API reads (a script is at most 16 KiB as sent).
    public static let maximumBody = 64 * 1024

    /// The queue and control routes (see README's API section): reading a device's queue and a
    /// request needs what every route needs (the read token, when there is one); submitting,
    /// cancelling, aborting, pausing and resuming need the control token.
    func controlRoutes(_ router: Router<BasicRequestContext>, control: Control) {
        router.get("/api/methods") { _, _ in try Self.json(Technique.allCases.map(MethodDocument.init)) }
        // Whether the request carries the control token (the page asks before it offers its controls).
        router.get("/api/control") { [self] request, _ in
            if let refusal = refusal(request, control) { return refusal }
            return try Self.json(RoleDocument(role: "control"))
        }
        router.get("/api/devices") { [self] _, _ in
            try Self.json(
                sources.devices().map { snapshot in
                    let requests = (try? control.rig.requests(device: snapshot.name)) ?? []
                    return DeviceDocument(
                        name: snapshot.name,
                        state: snapshot.state.description,
                        connected: snapshot.connected,
                        schedulePaused: control.rig.isSchedulePaused(device: snapshot.name),
                        queued: requests.filter { $0.state == .queued }.count,
                        running: requests.first { $0.state == .running }.map(document),
                        runs: snapshot.runs,
                        completeRuns: snapshot.completeRuns,
                        incompleteRuns: snapshot.incompleteRuns,
                        lastError: snapshot.lastError
                    )
                }
            )
        }
        router.get("/api/devices/:device/requests") { [self] _, context in
            let device = context.parameters.get("device") ?? ""
            return try await answer {
                let requests = try control.rig.requests(device: device)
                return try Self.json(
                    QueueDocument(
                        device: device,
                        schedulePaused: control.rig.isSchedulePaused(device: device),
                        requests: requests.map(document)
                    )
                )
            }
        }
        router.get("/api/requests/:id") { [self] _, context in
            let id = context.parameters.get("id") ?? ""
            return try await answer {
                guard let request = control.rig.request(id: id) else { throw RigControlError.unknownRequest(id) }
                return try Self.json(document(request))
            }
        }
        router.get("/api/requests/:id/events") { [sources, feeds, logger, clock] request, context in
            let id = context.parameters.get("id") ?? ""
            guard control.rig.request(id: id) != nil else { return Self.problem(.notFound, "no run request \(id)") }
            let after = RunEventStream.after(request)
            let stream = RunEventStream(journal: sources.journal, feeds: feeds, logger: logger, clock: clock)
            return RunEventStream.response { writer in
                try await stream.follow(request: id, control: control.rig, after: after, into: &writer)
            }
        }
        router.post("/api/devices/:device/requests") { [self] request, context in
            let device = context.parameters.get("device") ?? ""
            if let refusal = refusal(request, control) { return refusal }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: Self.maximumBody)
            } catch {
                return Self.problem(.contentTooLarge, "the body is over \(Self.maximumBody) bytes", parameter: "body")
            }
            return try await answer {
                let order = try RunOrderReader.read(
                    Data(buffer: body),
                    idempotencyHeader: request.headers[HTTPField.Name("Idempotency-Key")!]
                )
                let (queued, created) = try await control.rig.submit(order, to: device, by: actor(request))
                var response = try Self.json(document(queued))
                response.status = created ? .created : .ok
                response.headers[.location] = "/api/requests/\(queued.id)"
                return response
            }
        }
        router.delete("/api/requests/:id") { [self] request, context in
            let id = context.parameters.get("id") ?? ""
            if let refusal = refusal(request, control) { return refusal }
            return try await answer {
                try Self.json(document(try await control.rig.cancel(request: id, by: actor(request))))
            }
        }
        router.post("/api/devices/:device/abort") { [self] request, context in
            let device = context.parameters.get("device") ?? ""
            if let refusal = refusal(request, control) { return refusal }
            return try await answer {
                let aborted = try await control.rig.abort(device: device, by: actor(request))
                return try Self.json(AbortDocument(device: device, request: aborted.map(document)))
            }
        }
        for (verb, paused) in [("pause", true), ("resume", false)] {
            router.post("/api/devices/:device/schedule/\(verb)") { [self] request, context in
                let device = context.parameters.get("device") ?? ""
                if let refusal = refusal(request, control) { return refusal }
                return try await answer {
                    try await control.rig.setSchedulePaused(paused, device: device, by: actor(request))
                    return try Self.json(ScheduleDocument(device: device, schedulePaused: paused))
                }
            }
        }
    }

    /// Why `request` may not take a control action (401 without a token the rig knows, 403 with the
    /// read token or when the rig has no control token), or nil when it may. Nothing was read yet.
    private func refusal(_ request: Request, _ control: Control) -> Response? {
        guard let matcher = control.matcher else {
            return Self.problem(.forbidden, "this rig takes no orders: its [status] has no control_token_file")
        }
        guard let header = request.headers[.authorization], matcher.accepts(header) else {
            if request.headers[.authorization] != nil, hasReadToken {
                return Self.problem(.forbidden, "this token may read, not control: the control token is needed")
            }
            var response = Self.problem(.unauthorized, "the control token is needed")
            response.headers[.wwwAuthenticate] = "Bearer realm=\"hcipico\""
            return response
        }
        return nil
    }

    /// Who acts, for the journal: the role and the client's own name for itself.
    private func actor(_ request: Request) -> String {
        let agent = request.headers[.userAgent].map { String($0.prefix(80)) } ?? "no user agent"
        return "control token (\(agent))"
    }

    private func document(_ request: RunRequest) -> RequestDocument {
        RequestDocument(request, run: request.runID.flatMap { (try? sources.journal.runID(uuid: $0)) ?? nil })
    }

    /// `body`'s response, or the problem it threw as a JSON error with its status.
    private func answer(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as RigControlError {
            return Self.problem(for: error)
        }
    }

    /// A refused action's JSON error and status: 404 unknown, 400 invalid, 409 not now.
    static func problem(for error: RigControlError) -> Response {
        switch error {
        case .unknownDevice, .unknownRequest: problem(.notFound, "\(error)")
        case .invalid(let parameter, let message): problem(.badRequest, message, parameter: parameter)
        case .conflict: problem(.conflict, "\(error)")
        }
    }

    /// A JSON error: `{"error": "…", "parameter": "…"}`.
    static func problem(_ status: HTTPResponse.Status, _ message: String, parameter: String? = nil) -> Response {
        let data = (try? StatusDocument.encoder.encode(ProblemDocument(error: message, parameter: parameter))) ?? Data()
        return Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

struct ProblemDocument: Encodable {
    var error: String
    var parameter: String?
}

struct AbortDocument: Encodable {
    var device: String
    /// The request whose run was aborted (nil: a run the rig started before requests were kept).
    var request: RequestDocument?
}

/// A device as the API lists it: where it stands and what it has queued.
struct DeviceDocument: Encodable {
    var name: String
    /// The supervisor's state in words (`connected`, `running run 4`, `away, retry 2 pending (…)`).
    var state: String
    var connected: Bool
    var schedulePaused: Bool
    var queued: Int
    var running: RequestDocument?
    var runs: Int
    var completeRuns: Int
    var incompleteRuns: Int
    var lastError: String?
}

/// The role a request's token has (`/api/control`).
struct RoleDocument: Encodable {
    var role: String
}

struct ScheduleDocument: Encodable {
    var device: String
    var schedulePaused: Bool
}

/// A technique and its parameters, for clients that build a method (the page's form, agents).
struct MethodDocument: Encodable {
    struct Parameter: Encodable {
        var key: String
        var unit: String
        var meaning: String
        var defaultValue: Double
        var minimum: Double?
        var maximum: Double?
        var integer: Bool
    }

    var technique: String
    var name: String
    var parameters: [Parameter]

    init(_ technique: Technique) {
        self.technique = technique.rawValue
        name = technique.name
        parameters = technique.parameters.map {
            Parameter(
                key: $0.key,
                unit: $0.unit,
                meaning: $0.meaning,
                defaultValue: $0.defaultValue,
                minimum: $0.minimum,
                maximum: $0.maximum,
                integer: $0.isInteger
            )
        }
    }
}
