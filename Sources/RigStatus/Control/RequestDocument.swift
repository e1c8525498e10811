import RigModel

/// A run request as the API gives it (`/api/requests/{id}`, a device's queue).
struct RequestDocument: Encodable {
    var id: String
    var device: String
    var state: String
    var title: String
    var technique: String?
    var priority: Int
    var submittedAt: Double
    var submitter: String
    var idempotencyKey: String?
    /// The journal's key for the run, once started; `run` is its id in `/api/runs` and `/runs/{id}/…`.
    var runUuid: String?
    var run: Int64?
    var deviceRun: Int?
    var reason: String?
    var script: String

    init(_ request: RunRequest, run: Int64?) {
        id = request.id
        device = request.device
        state = request.state.rawValue
        title = request.title
        technique = request.technique
        priority = request.priority
        submittedAt = request.submittedAt
        submitter = request.submitter
        idempotencyKey = request.idempotencyKey
        runUuid = request.runID
        self.run = run
        deviceRun = request.deviceRun
        reason = request.reason
        script = request.script.joined(separator: "\n")
    }
}

/// A device's run queue as the API gives it.
struct QueueDocument: Encodable {
    var device: String
    var schedulePaused: Bool
    /// Queued in the order they will run, the one running, then the latest that ended, newest first.
    var requests: [RequestDocument]
}
