public import Coordination
import Foundation
import Hummingbird
import Logging
import NIOCore
import RigJournal

/// The rig's web side on one port: the status page and its assets, `/api/status`, `/api/runs`, the
/// live event stream (`/events`, server-sent events), run downloads from the journal, `/metrics` and
/// `/healthz`; with a `Control`, the devices' run queues, and with its control token the control
/// actions (submit, cancel, abort, pause, resume; see `controlRoutes`).
///
/// ```swift
/// let server = StatusServer(sources: sources, host: "127.0.0.1", port: 9464, token: nil, logger: logger)
/// let task = Task { try await server.run() }
/// let port = await server.boundPort()    // once listening
/// task.cancel()                          // stops it
/// ```
public final class StatusServer: Sendable {
    let sources: StatusSources
    private let host: String
    private let port: Int
    private let token: String?
    private let control: Control?
    let logger: Logger
    public let metrics: RigMetrics
    /// The runs the event streams follow, read at each commit.
    let feeds: RunFeeds
    /// What paces the event streams (and the run feeds' followers).
    let clock: any TimeSource
    /// The port, once listening.
    private let bound = Latch<Int>()

    /// `token`: when set, every request must carry it or the control token (see `TokenCheck`).
    /// `control`: the rig's run queues, and its control token (nil: read-only).
    public init(
        sources: StatusSources,
        host: String,
        port: Int,
        token: String?,
        control: Control? = nil,
        clock: any TimeSource = SystemClock(),
        logger: Logger
    ) {
        self.clock = clock
        self.sources = sources
        self.host = host
        self.port = port
        self.token = token
        self.control = control
        self.logger = logger
        metrics = RigMetrics(sources: sources)
        feeds = RunFeeds(journal: sources.journal, clock: clock)
        sources.writer.onCommit { [feeds] commit in feeds.commit(commit) }
    }

    /// Serves until the calling task is cancelled. Throws when the address cannot be bound.
    public func run() async throws { try await run(onListening: { _ in }) }

    /// Serves until the calling task is cancelled, calling `onListening` with the bound port once it
    /// listens. Throws when the address cannot be bound.
    public func run(onListening: @escaping @Sendable (Int) -> Void) async throws {
        // The run feeds' refresher lives as long as the server, as a child task beside it.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [feeds] in await feeds.run() }
            let application = application(onListening: onListening)
            group.addTask { try await application.run() }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Whether reading needs a token (then a request with some other token is refused as a reader).
    var hasReadToken: Bool { token != nil }

    /// The Hummingbird application `run` serves.
    public func application(
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> Application<RouterResponder<BasicRequestContext>> {
        let router = Router()
        if let token { router.add(middleware: TokenCheck(tokens: [token] + (control?.token.map { [$0] } ?? []))) }
        routes(router)
        if let control { controlRoutes(router, control: control) }
        var serverLogger = logger
        serverLogger.logLevel = .critical
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? self.port
                bound.settle(port)
                onListening(port)
            },
            logger: serverLogger
        )
    }

    /// The port once listening (the one asked for, or the one picked for port 0).
    public func boundPort() async -> Int { await bound.wait() }

    private func routes(_ router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.asset(StatusPageAssets.index, type: "text/html; charset=utf-8") }
        router.get("/assets/app.js") { _, _ in
            Self.asset(StatusPageAssets.script, type: "text/javascript; charset=utf-8")
        }
        router.get("/assets/style.css") { _, _ in Self.asset(StatusPageAssets.style, type: "text/css; charset=utf-8") }
        router.get("/healthz") { [sources] _, _ in
            if let failure = sources.writer.failed {
                return Self.text("journal failed: \(failure)\n", status: .serviceUnavailable)
            }
            let stalled = sources.writer.stalledFor
            if stalled >= 10 {
                return Self.text("journal stalled for \(Int(stalled)) s\n", status: .serviceUnavailable)
            }
            return Self.text("ok\n", status: .ok)
        }
        router.get("/metrics") { [metrics] _, _ in
            Self.text(metrics.exposition(), status: .ok, type: "text/plain; version=0.0.4; charset=utf-8")
        }
        router.get("/api/status") { [self] _, _ in try json(statusDocument()) }
        // The newest runs first: `limit` (1…1000, 50), `device` (repeatable), `before` (a run id: the
        // page of runs older than it).
        router.get("/api/runs") { [sources] request, _ in
            let query = request.uri.queryParameters
            let limit = query.get("limit", as: Int.self).map { min(max($0, 1), 1000) } ?? 50
            let devices = query.getAll("device").map { String($0) }
            let filter = RunFilter(
                devices: devices.isEmpty ? nil : devices,
                latest: limit,
                before: query.get("before", as: Int64.self)
            )
            let runs = try sources.journal.runs(filter)
            return try Self.json(runs.reversed().map(RunDocument.init))
        }
        // A device's latest analysed runs and their results as series: `device`, `limit` (1…200, 30).
        router.get("/api/trend") { [sources] request, _ in
            let query = request.uri.queryParameters
            guard let device = query.get("device") else {
                return Self.text("device= is missing\n", status: .badRequest)
            }
            let limit = query.get("limit", as: Int.self).map { min(max($0, 1), TrendDocument.limit) } ?? 30
            let analyses = try sources.journal.latestAnalyses(device: String(device), limit: limit)
            return try Self.json(TrendDocument(device: String(device), analyses: analyses))
        }
        for suffix in RunExport.suffixes {
            router.get("/runs/:id/\(suffix.dropFirst())") { [sources] _, context in
                guard let id = context.parameters.get("id", as: Int64.self) else {
                    return Self.text("not a run id\n", status: .badRequest)
                }
                return try RunDownload.response(run: id, suffix: suffix, journal: sources.journal)
            }
        }
        // A run's packages as server-sent events, resumable (`Last-Event-ID`, `?after=`); see `RunEventStream`.
        router.get("/api/runs/:id/events") { [sources, feeds, logger, clock] request, context in
            guard let id = context.parameters.get("id", as: Int64.self) else {
                return Self.problem(.badRequest, "not a run id", parameter: "id")
            }
            guard try sources.journal.runs(RunFilter(ids: [id])).first != nil else {
                return Self.problem(.notFound, "no run \(id) in the journal")
            }
            let after = RunEventStream.after(request)
            let stream = RunEventStream(journal: sources.journal, feeds: feeds, logger: logger, clock: clock)
            return RunEventStream.response { writer in try await stream.stream(run: id, after: after, into: &writer) }
        }
        router.get("/events") { [self] _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody { [self] writer in try await stream(into: &writer) }
            )
        }
    }

    /// The event stream: `status` at once and every second, `plot` whenever the journal has committed
    /// new packages of a device's run, a keep-alive comment every 15 s.
    private func stream(into writer: inout any ResponseBodyWriter) async throws {
        var feed = LivePlotFeed()
        var lastKeepAlive = clock.now
        var tick = 0
        while !Task.isCancelled {
            var text = ""
            if tick % 4 == 0 {
                let document = try StatusDocument.encoder.encode(statusDocument())
                text += "event: status\ndata: \(String(decoding: document, as: UTF8.self))\n\n"
            }
            for event in try feed.events(journal: sources.journal, devices: sources.devices()) { text += event }
            if clock.now - lastKeepAlive >= .seconds(15) {
                text += ": keep-alive\n\n"
                lastKeepAlive = clock.now
            }
            if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
            tick += 1
            try await clock.sleep(for: .milliseconds(250))
        }
        try await writer.finish(nil)
    }

    private func statusDocument() -> StatusDocument {
        StatusDocument(sources) { [sources] uuid in (try? sources.journal.runID(uuid: uuid)) ?? nil }
    }

    private func json<T: Encodable>(_ value: T) throws -> Response { try Self.json(value) }

    static func json<T: Encodable>(_ value: T) throws -> Response {
        let data = try StatusDocument.encoder.encode(value)
        return Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    static func text(
        _ text: String,
        status: HTTPResponse.Status,
        type: String = "text/plain; charset=utf-8"
    ) -> Response {
        Response(status: status, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func asset(_ bytes: [UInt8], type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
