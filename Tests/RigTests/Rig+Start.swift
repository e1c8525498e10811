import RigCore

extension Rig {
    /// Runs the rig apart from the test, which then waits for what it checks (`finished`, a snapshot)
    /// and ends it with `stop`: `run` returns once every supervisor has ended.
    func start() {
        Task { await run() }
    }
}
