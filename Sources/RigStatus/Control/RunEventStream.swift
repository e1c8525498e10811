import Foundation
import HTTPTypes
import Hummingbird
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
    /// How often the journal is read for new packages.
    static let poll: Duration = .milliseconds(50)
    /// Most packages one read takes.
    static let readLimit = 2_000

    struct PackageEvent: Encodable {
        struct Value: Encodable {
            var name: String?
            var type: String
            var value: Double?
        }
        var index: Int
        var loop: Int
        var scan: Int?
        var hostTime: Double
        var values: [Value]
    }

    struct EndEvent: Encodable {
        var run: Int64
        var state: String
        var reason: String?
        var packages: Int
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
        var last = after
        var lastWrite = ContinuousClock.now
        while !Task.isCancelled {
            // The state before the read: a run seen ended has every package committed already.
            guard let summary = try journal.runs(RunFilter(ids: [run])).first else { return }
            let packages = try journal.packages(of: run, after: last, limit: Self.readLimit)
            if !packages.isEmpty {
                var text = ""
                for package in packages {
                    text += "id: \(package.index)\nevent: package\ndata: \(try Self.encode(Self.event(package)))\n\n"
                    last = package.index
                }
                try await writer.write(ByteBuffer(string: text))
                lastWrite = .now
                if packages.count == Self.readLimit { continue }
            }
            if summary.state != "running" {
                let end = EndEvent(run: run, state: summary.state, reason: summary.reason, packages: summary.packages)
                try await writer.write(ByteBuffer(string: "event: end\ndata: \(try Self.encode(end))\n\n"))
                return
            }
            if ContinuousClock.now - lastWrite >= .seconds(15) {
                try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                lastWrite = .now
            }
            try await Task.sleep(for: Self.poll)
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
        while !Task.isCancelled {
            guard let request = control.request(id: id) else { return }
            if request.state != sentState {
                let document = RequestDocument(request, run: nil)
                try await writer.write(ByteBuffer(string: "event: request\ndata: \(try Self.encode(document))\n\n"))
                sentState = request.state
            }
            if let uuid = request.runID, let run = try journal.runID(uuid: uuid) {
                try await stream(run: run, after: after, into: &writer)
                return
            }
            if request.state.isFinal { return }
            try await Task.sleep(for: Self.poll)
        }
    }

    static func event(_ package: PicoPackage) -> PackageEvent {
        PackageEvent(
            index: package.index,
            loop: package.loop,
            scan: package.scan,
            hostTime: package.hostTime,
            values: package.values.map {
                PackageEvent.Value(name: $0.name, type: $0.variable.code, value: $0.value.isFinite ? $0.value : nil)
            }
        )
    }

    static func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try StatusDocument.encoder.encode(value), as: UTF8.self)
    }
}
