import RigModel
import Synchronization

/// Every device's runs waiting their turn, on demand and scheduled alike, one queue a device: the
/// request of highest priority runs first, and among equals the one asked first (a schedule's run counts
/// as asked at its slot). It also keeps each device's schedule paused or not, the idempotency keys, and
/// the latest requests that ended (`keptEnded` a device), so that a client can follow what it asked.
///
/// A device's supervisor takes from it (`takeNext`) and reports the run's start and end; a submission
/// wakes the device's supervisor when it waits.
final class RunQueue: Sendable {
    /// Requests kept a device once they ended.
    static let keptEnded = 100

    private struct Inner {
        /// Every request kept, by id: queued, running, and the latest ended.
        var requests: [String: RunRequest] = [:]
        /// A device's queued requests' ids, in the order they were asked.
        var queued: [String: [String]] = [:]
        /// A device's request running, if any.
        var running: [String: String] = [:]
        /// A device's ended requests' ids, oldest first, at most `keptEnded`.
        var ended: [String: [String]] = [:]
        /// (device, idempotency key) → id, while the request is kept.
        var keys: [IdempotencyKey: String] = [:]
        var paused: Set<String> = []
        /// What wakes a device's supervisor.
        var wakers: [String: @Sendable () -> Void] = [:]
        /// Who is told of each change of a request's state, by token.
        var watchers: [Int: @Sendable () -> Void] = [:]
        var nextWatcher = 0
        /// Set once the rig stops: no more requests are taken.
        var closed: String?

        /// Keeps `request`, which has ended, among its device's latest `keptEnded`, and its idempotency
        /// key while it is kept.
        mutating func keepEnded(_ request: RunRequest) {
            requests[request.id] = request
            if let key = request.idempotencyKey { keys[IdempotencyKey(device: request.device, key: key)] = request.id }
            var kept = ended[request.device] ?? []
            kept.append(request.id)
            while kept.count > RunQueue.keptEnded {
                let oldest = kept.removeFirst()
                if let gone = requests.removeValue(forKey: oldest), let key = gone.idempotencyKey {
                    keys[IdempotencyKey(device: gone.device, key: key)] = nil
                }
            }
            ended[request.device] = kept
        }

        /// Puts `request` among its device's queued ones in the order they were asked: a schedule's run
        /// queued late (the device was busy at its slot) goes before what was asked after the slot.
        mutating func enqueue(_ request: RunRequest) {
            var ids = queued[request.device] ?? []
            let position = ids.firstIndex { (requests[$0]?.submittedAt ?? 0) > request.submittedAt } ?? ids.count
            ids.insert(request.id, at: position)
            queued[request.device] = ids
        }
    }

    private struct IdempotencyKey: Hashable {
        let device: String
        let key: String
    }

    private let state = Mutex(Inner())

    /// `waker` is called (outside the queue's lock) when a request is queued on `device`.
    func onSubmit(device: String, _ waker: @escaping @Sendable () -> Void) {
        state.withLock { $0.wakers[device] = waker }
    }

    /// Queues `request`, or returns the kept request of the same device and idempotency key (`created`
    /// false). Throws `conflict` once the rig is stopping.
    func submit(_ request: RunRequest) throws(RigControlError) -> (request: RunRequest, created: Bool) {
        let (result, waker) = try state.withLock { inner throws(RigControlError) in
            if let reason = inner.closed { throw RigControlError.conflict("the rig is stopping (\(reason))") }
            if let key = request.idempotencyKey,
                let id = inner.keys[IdempotencyKey(device: request.device, key: key)],
                let earlier = inner.requests[id]
            {
                return ((earlier, false), nil as (@Sendable () -> Void)?)
            }
            inner.requests[request.id] = request
            inner.enqueue(request)
            if let key = request.idempotencyKey {
                inner.keys[IdempotencyKey(device: request.device, key: key)] = request.id
            }
            return ((request, true), inner.wakers[request.device])
        }
        waker?()
        return result
    }

    /// Whether `device` has a request queued.
    func hasQueued(device: String) -> Bool {
        state.withLock { !($0.queued[device] ?? []).isEmpty }
    }

    /// Whether `device` has a schedule's request queued.
    func hasScheduled(device: String) -> Bool {
        state.withLock { inner in
            (inner.queued[device] ?? []).contains { inner.requests[$0]?.submitter == RunRequest.scheduleSubmitter }
        }
    }

    /// Calls `watcher` after each change of a request's state (taken to run, started, ended, put
    /// back), until `unwatch` with the token it returns.
    func watch(_ watcher: @escaping @Sendable () -> Void) -> Int {
        state.withLock { inner in
            inner.nextWatcher += 1
            inner.watchers[inner.nextWatcher] = watcher
            return inner.nextWatcher
        }
    }

    func unwatch(_ token: Int) {
        _ = state.withLock { $0.watchers.removeValue(forKey: token) }
    }

    /// Tells the watchers (outside the lock) that `request` changed, when one did; returns it.
    @discardableResult
    private func changed(_ request: RunRequest?) -> RunRequest? {
        guard request != nil else { return nil }
        for watcher in state.withLock({ Array($0.watchers.values) }) { watcher() }
        return request
    }

    /// The request to run next on `device`, now marked running; nil when none is queued.
    func takeNext(device: String) -> RunRequest? {
        changed(
            state.withLock { inner -> RunRequest? in
                let ids = inner.queued[device] ?? []
                var best: Int?
                for (index, id) in ids.enumerated() {
                    guard let request = inner.requests[id] else { continue }
                    if let current = best, let leader = inner.requests[ids[current]],
                        leader.priority >= request.priority
                    {
                        continue
                    }
                    best = index
                }
                guard let best else { return nil }
                let id = ids[best]
                inner.queued[device]?.remove(at: best)
                inner.requests[id]?.state = .running
                inner.requests[id]?.revision += 1
                inner.running[device] = id
                return inner.requests[id]
            }
        )
    }

    /// Puts request `id`, taken but not started, back in its place among the queued.
    func requeue(_ id: String) {
        changed(
            state.withLock { inner -> RunRequest? in
                guard var request = inner.requests[id], request.state == .running else { return nil }
                request.state = .queued
                request.revision += 1
                inner.requests[id] = request
                if inner.running[request.device] == id { inner.running[request.device] = nil }
                inner.enqueue(request)
                return request
            }
        )
    }

    /// The request `id`'s run started: the journal's key for it and the device's run number.
    func started(_ id: String, runID: String, deviceRun: Int) -> RunRequest? {
        changed(
            state.withLock { inner in
                inner.requests[id]?.runID = runID
                inner.requests[id]?.deviceRun = deviceRun
                inner.requests[id]?.revision += 1
                return inner.requests[id]
            }
        )
    }

    /// The request `id` ended: its run complete, or not (`reason`), or never started (`cancelled`).
    @discardableResult
    func ended(_ id: String, state final: RunRequest.State, reason: String?) -> RunRequest? {
        changed(
            state.withLock { inner in
                guard var request = inner.requests[id], !request.state.isFinal else { return nil }
                request.state = final
                request.reason = reason
                request.revision += 1
                inner.queued[request.device]?.removeAll { $0 == id }
                if inner.running[request.device] == id { inner.running[request.device] = nil }
                inner.keepEnded(request)
                return request
            }
        )
    }

    /// Keeps requests a previous process saw end (the journal's, oldest first), as if they had ended
    /// here: a client can still look them up, and a submission retried with one's idempotency key is
    /// that request, not a second run.
    func restore(_ requests: [RunRequest]) {
        state.withLock { inner in
            for request in requests where request.state.isFinal && inner.requests[request.id] == nil {
                inner.keepEnded(request)
            }
        }
    }

    /// Cancels request `id` if it is still queued; throws when it is not kept, or started already.
    func cancel(_ id: String, reason: String) throws(RigControlError) -> RunRequest {
        let request = state.withLock { $0.requests[id] }
        guard let request else { throw .unknownRequest(id) }
        guard request.state == .queued, let cancelled = ended(id, state: .cancelled, reason: reason) else {
            throw .conflict("run request \(id) is \(request.state.rawValue): only a queued request can be cancelled")
        }
        return cancelled
    }

    /// Cancels every queued request of `device` (a device removed from the config).
    func cancelAll(device: String, reason: String) -> [RunRequest] {
        cancelQueued(reason: reason) { $0.queued[device] ?? [] }
    }

    /// Cancels the schedule's queued run of `device`, if any (a paused schedule starts none).
    func cancelScheduled(device: String, reason: String) -> [RunRequest] {
        cancelQueued(reason: reason) { inner in
            (inner.queued[device] ?? []).filter { inner.requests[$0]?.isScheduled == true }
        }
    }

    /// The rig stops: no request is taken from now on, and every queued one is cancelled (returned).
    func close(reason: String) -> [RunRequest] {
        cancelQueued(reason: reason) { inner in
            inner.closed = inner.closed ?? reason
            return inner.queued.values.flatMap { $0 }
        }
    }

    /// Cancels the queued requests `pick` names (under the lock), with `reason`; returns them.
    private func cancelQueued(reason: String, _ pick: (inout Inner) -> [String]) -> [RunRequest] {
        let ids = state.withLock { pick(&$0) }
        return ids.compactMap { ended($0, state: .cancelled, reason: reason) }
    }

    func setPaused(_ paused: Bool, device: String) {
        let waker = state.withLock { inner in
            if paused { inner.paused.insert(device) } else { inner.paused.remove(device) }
            return inner.wakers[device]
        }
        waker?()
    }

    func isPaused(device: String) -> Bool { state.withLock { $0.paused.contains(device) } }

    /// `device`'s requests: queued in the order they will run, the one running, then the ended ones
    /// kept, newest first.
    func requests(device: String) -> [RunRequest] {
        state.withLock { inner in
            let queued = (inner.queued[device] ?? []).compactMap { inner.requests[$0] }
            // Stable: equal priorities keep the order they were asked in.
            let order = queued.enumerated().sorted { a, b in
                a.element.priority != b.element.priority ? a.element.priority > b.element.priority : a.offset < b.offset
            }.map(\.element)
            let running = inner.running[device].flatMap { inner.requests[$0] }.map { [$0] } ?? []
            let ended = (inner.ended[device] ?? []).reversed().compactMap { inner.requests[$0] }
            return order + running + ended
        }
    }

    func request(id: String) -> RunRequest? { state.withLock { $0.requests[id] } }

    /// The request running on `device`, if any.
    func running(device: String) -> RunRequest? {
        state.withLock { inner in inner.running[device].flatMap { inner.requests[$0] } }
    }
}
