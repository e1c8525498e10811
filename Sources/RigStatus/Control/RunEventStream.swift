import Coordination
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PicoLink
import RigJournal
import RigModel

/// A run's packages as server-sent events, read from the journal as it commits them: `package` events
/// whose `id` is the package's index, then one `end` with how the run ended. A client that reconnects
/// with `Last-Event-ID` (or `?after=`) gets the packages after that index, so nothing is lost or sent
/// twice. Following a request first sends its `request` state while it waits its turn.
struct RunEventStream {
    let journal: Journal
    /// The runs followed, rendered once from the journal's commits for all their followers; a stream is
    /// woken when its run's feed has more (and each second, for its keep-alive).
    let feeds: RunFeeds
    /// Journal reads a stream tries in a row before it ends with an `error` event.
    static let readAttempts = 40
    /// Where a failed read is told.
    let logger: Logger
    /// What keep-alives, retries and looks are measured on (the status server's clock).
    let clock: any TimeSource
    /// How long a stream stays silent before it sends a comment line, so that proxies keep it open.
    static let keepAlive: Duration = .seconds(15)
    /// The longest a request's follower waits for a change before it looks again while the request
    /// waits its turn (a change wakes it at once).
    static let requestLook: Duration = .seconds(1)
    /// How often it looks for the journal's record of its run's start (committed within the journal's
    /// commit interval after the run started).
    static let runStartLook: Duration = .milliseconds(20)

    struct EndEvent: Encodable {
        var run: Int64
        var state: String
        var reason: String?
        var packages: Int
    }

    /// Sends a comment line when nothing was written for `keepAlive` since `lastWrite` (on `clock`).
    func keepAlive(after lastWrite: inout Duration, into writer: inout any ResponseBodyWriter) async throws {
        guard clock.now - lastWrite >= Self.keepAlive else { return }
        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
        lastWrite = clock.now
    }

    /// The first index to send: after `Last-Event-ID`, or `?after=`, else from the first package.
    static func after(_ request: Request) -> Int {
        if let header = request.headers[HTTPField.Name("Last-Event-ID")!], let index = Int(header) { return index }
        return request.uri.queryParameters.get("after", as: Int.self) ?? -1
    }

    static func response(_ body: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                try await body(&writer)
                try await writer.finish(nil)
            }
        )
    }

    /// Sends run `run`'s packages after index `after` until the run has ended and all are sent.
    func stream(run: Int64, after: Int, into writer: inout any ResponseBodyWriter) async throws {
        let follower = feeds.join(run)
        defer { feeds.leave(follower) }
        var last = after
        var lastWrite = clock.now
        var failures = 0
        while !Task.isCancelled {
            let slice: RunFeeds.Slice?
            do {
                slice = try feeds.slice(run: run, after: last)
                failures = 0
            } catch {
                // A read the journal could not do now (a checkpoint holding it): again shortly, then give up
                // with the reason as the stream's last event.
                failures += 1
                logger.warning("event stream of run \(run): \(error)")
                if failures >= Self.readAttempts {
                    let reason = try Self.encode(["error": "\(error)"])
                    try await writer.write(ByteBuffer(string: "event: error\ndata: \(reason)\n\n"))
                    return
                }
                try await clock.sleep(until: clock.now + .milliseconds(50))
                continue
            }
            guard let slice else { return }
            if !slice.isEmpty {
                try await writer.write(slice.bytes)
                last = slice.last
                lastWrite = clock.now
                continue  // more may be there already (a follower far behind)
            }
            if let summary = slice.end {
                let end = EndEvent(run: run, state: summary.state, reason: summary.reason, packages: summary.packages)
                try await writer.write(ByteBuffer(string: "event: end\ndata: \(try Self.encode(end))\n\n"))
                return
            }
            try await keepAlive(after: &lastWrite, into: &writer)
            await follower.signal.wait()
        }
    }

    /// Follows request `id`: its state while it waits (a `request` event at each change), then its run's
    /// packages; a request cancelled before it ran ends with its `request` event alone.
    func follow(
        request id: String,
        control: any RigControl,
        after: Int,
        into writer: inout any ResponseBodyWriter
    ) async throws {
        var sentState: RunRequest.State?
        let changed = WakeSignal(clock: clock)
        let watch = control.watchRequests { changed.signal() }
        defer { control.unwatchRequests(watch) }
        var lastWrite = clock.now
        while !Task.isCancelled {
            guard let request = control.request(id: id) else { return }
            if request.state != sentState {
                let document = RequestDocument(request, run: nil)
                try await writer.write(ByteBuffer(string: "event: request\ndata: \(try Self.encode(document))\n\n"))
                sentState = request.state
                lastWrite = clock.now
            } else {
                try await keepAlive(after: &lastWrite, into: &writer)  // a long wait in the queue
            }
            if let uuid = request.runID {
                // Its run, once the journal has committed its start (a failed read looks again).
                if let run = (try? journal.runID(uuid: uuid)) ?? nil {
                    try await stream(run: run, after: after, into: &writer)
                    return
                }
            } else if request.state.isFinal {
                return  // cancelled before it ran: its request event says so
            }
            await changed.wait(upTo: request.runID == nil ? Self.requestLook : Self.runStartLook)
        }
    }

    static func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try StatusDocument.encoder.encode(value), as: UTF8.self)
    }
}
