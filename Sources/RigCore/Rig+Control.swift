import Foundation
import MethodSCRIPT
import PicoLink
public import RigModel

/// The rig takes orders: runs asked on demand join each device's queue beside its schedule's runs, and
/// every action is recorded in the journal (and logged) before it is answered.
extension Rig: RigControl {
    /// Highest priority a request may ask (and the lowest, negated).
    public static let maximumPriority = 1000
    /// Longest title a request may give.
    public static let maximumTitleLength = 200

    public func submit(
        _ order: RunOrder,
        to device: String,
        by actor: String
    ) async throws(RigControlError) -> (request: RunRequest, created: Bool) {
        try checkDevice(device)
        try checkRunning(device)
        let (script, technique) = try Self.script(for: order.body)
        guard abs(order.priority) <= Self.maximumPriority else {
            throw .invalid(
                parameter: "priority",
                message: "must be from -\(Self.maximumPriority) to \(Self.maximumPriority)"
            )
        }
        if let title = order.title, title.isEmpty || title.count > Self.maximumTitleLength || title.contains("\n") {
            throw .invalid(
                parameter: "title",
                message: "must be one line of 1 to \(Self.maximumTitleLength) characters"
            )
        }
        if let key = order.idempotencyKey, key.isEmpty || key.utf8.count > 200 {
            throw .invalid(parameter: "idempotency_key", message: "must be 1 to 200 bytes")
        }
        let request = RunRequest(
            id: UUID().uuidString.lowercased(),
            device: device,
            title: order.title ?? technique ?? "script",
            technique: technique,
            script: script.lines,
            priority: order.priority,
            submittedAt: context.clock.wallTime,
            submitter: actor,
            idempotencyKey: order.idempotencyKey
        )
        let result = try queue.submit(request)
        guard result.created else { return result }
        try await record(
            result.request,
            action: "submit",
            actor: actor,
            detail: "\(request.title), priority \(request.priority)"
        )
        return result
    }

    public func cancel(request id: String, by actor: String) async throws(RigControlError) -> RunRequest {
        let cancelled = try queue.cancel(id, reason: "cancelled by \(actor)")
        try await record(cancelled, action: "cancel", actor: actor, detail: cancelled.title)
        return cancelled
    }

    public func abort(device: String, by actor: String) async throws(RigControlError) -> RunRequest? {
        try checkDevice(device)
        let supervisor = state.withLock { $0.supervisors[device] }
        let running = queue.running(device: device)
        guard let supervisor, await supervisor.abortRun(reason: "aborted by \(actor)") else {
            throw .conflict("\(device) has no run in progress")
        }
        try await recordAction(
            ControlAction(
                time: context.clock.wallTime,
                actor: actor,
                action: "abort",
                device: device,
                requestID: running?.id,
                detail: running.map { "\($0.title), run \($0.deviceRun.map(String.init) ?? "?")" }
                    ?? "the run in progress"
            )
        )
        return running
    }

    public func setSchedulePaused(_ paused: Bool, device: String, by actor: String) async throws(RigControlError) {
        try checkDevice(device)
        queue.setPaused(paused, device: device)
        if paused { await recordCancelled(queue.cancelScheduled(device: device, reason: "the schedule was paused")) }
        try await recordAction(
            ControlAction(
                time: context.clock.wallTime,
                actor: actor,
                action: paused ? "pause" : "resume",
                device: device,
                detail: paused ? "schedule paused" : "schedule resumed"
            )
        )
    }

    public func isSchedulePaused(device: String) -> Bool { queue.isPaused(device: device) }

    public func requests(device: String) throws(RigControlError) -> [RunRequest] {
        try checkDevice(device)
        return queue.requests(device: device)
    }

    public func request(id: String) -> RunRequest? { queue.request(id: id) }

    public func watchRequests(_ watcher: @escaping @Sendable () -> Void) -> Int { queue.watch(watcher) }

    public func unwatchRequests(_ token: Int) { queue.unwatch(token) }

    // MARK: Helpers

    private func checkDevice(_ device: String) throws(RigControlError) {
        guard state.withLock({ $0.config.devices.contains { $0.name == device } }) else {
            throw .unknownDevice(device)
        }
    }

    /// Throws when `device`'s supervisor has ended (its schedule is done): nothing would run a request.
    private func checkRunning(_ device: String) throws(RigControlError) {
        if case .finished(let reason) = state.withLock({ $0.supervisors[device]?.snapshot.state }) {
            throw .conflict("\(device) has finished (\(reason)): it takes no more runs")
        }
    }

    /// The script an order's body sends, checked, and its technique when it is a method.
    static func script(for body: RunOrder.Body) throws(RigControlError) -> (PicoScript, String?) {
        switch body {
        case .method(let name, let parameters):
            guard let technique = Technique(named: name) else {
                throw .invalid(
                    parameter: "technique",
                    message:
                        "unknown technique \(name); known: \(Technique.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            let known = Set(technique.parameters.map(\.key))
            if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
                throw .invalid(
                    parameter: unknown,
                    message:
                        "not a parameter of \(technique.rawValue); its parameters: \(known.sorted().joined(separator: ", "))"
                )
            }
            let method: Method
            do {
                method = try Method(technique: technique, values: parameters)
            } catch {
                throw .invalid(parameter: "technique", message: "\(error)")
            }
            if let problem = method.problems().first {
                throw .invalid(parameter: problem.parameter ?? "technique", message: problem.message)
            }
            do {
                return (try PicoScript(try method.script()), technique.rawValue)
            } catch {
                throw .invalid(parameter: "technique", message: "\(error)")
            }
        case .script(let text):
            do {
                return (try PicoScript(text), nil)
            } catch {
                throw .invalid(parameter: "script", message: "\(error)")
            }
        }
    }

    /// Writes `request` as it stands and the action on it to the journal, and logs the action.
    private func record(
        _ request: RunRequest,
        action: String,
        actor: String,
        detail: String
    ) async throws(RigControlError) {
        do {
            try await context.journal.requestChanged(request)
        } catch {
            context.fatal(error)
            throw .conflict("the journal failed: \(error)")
        }
        try await recordAction(
            ControlAction(
                time: context.clock.wallTime,
                actor: actor,
                action: action,
                device: request.device,
                requestID: request.id,
                detail: detail
            )
        )
    }

    private func recordAction(_ action: ControlAction) async throws(RigControlError) {
        let request = action.requestID.map { " (request \($0))" } ?? ""
        context.logger.notice(
            "\(action.device): \(action.action) by \(action.actor)\(request): \(action.detail)",
            metadata: ["device": "\(action.device)"]
        )
        do {
            // Committed before the answer: a client told "done" finds it in the journal, whatever follows.
            try await context.journal.controlAction(action)
            try await context.journal.flush()
        } catch {
            context.fatal(error)
            throw .conflict("the journal failed: \(error)")
        }
    }

    /// Writes requests the rig cancelled (a stop, a device removed) to the journal.
    func recordCancelled(_ requests: [RunRequest]) async {
        for request in requests {
            context.logger.info(
                "\(request.device): request \(request.id) (\(request.title)) cancelled: \(request.reason ?? "")",
                metadata: ["device": "\(request.device)"]
            )
            do {
                try await context.journal.requestChanged(request)
            } catch {
                context.fatal(error)
                return
            }
        }
    }
}
