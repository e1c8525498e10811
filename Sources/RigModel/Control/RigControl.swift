/// What the rig lets a client with the control role do, and what anyone who may read sees of its run
/// queues. The rig implements it; its API and its MCP server call it. Every action is recorded (see
/// `ControlAction`) before it is answered.
public protocol RigControl: Sendable {
    /// Queues `order` on `device` behind what is queued before it, or returns the request an earlier
    /// order with the same idempotency key made (`created` false).
    func submit(
        _ order: RunOrder,
        to device: String,
        by actor: String
    ) async throws(RigControlError) -> (
        request: RunRequest, created: Bool
    )
    /// Cancels a request that has not started.
    func cancel(request id: String, by actor: String) async throws(RigControlError) -> RunRequest
    /// Aborts `device`'s run in progress (`Z`, then the cell off); returns the request it ran for, if
    /// any. Throws `conflict` when nothing runs.
    func abort(device: String, by actor: String) async throws(RigControlError) -> RunRequest?
    /// Stops (`paused` true) or restarts `device`'s schedule; requests still run.
    func setSchedulePaused(_ paused: Bool, device: String, by actor: String) async throws(RigControlError)
    /// Whether `device`'s schedule is paused.
    func isSchedulePaused(device: String) -> Bool
    /// `device`'s requests: queued in the order they will run, then the one running, then the latest
    /// that ended (at most `RunQueue.keptEnded` per device), newest first.
    func requests(device: String) throws(RigControlError) -> [RunRequest]
    /// One request by id, while the rig keeps it.
    func request(id: String) -> RunRequest?
    /// Calls `watcher` after each change of any request's state (taken to run, started, ended), until
    /// `unwatchRequests` with the token returned: so that a follower waits for a change, not on a timer.
    func watchRequests(_ watcher: @escaping @Sendable () -> Void) -> Int
    func unwatchRequests(_ token: Int)
}
