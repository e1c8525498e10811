public import BLEHost
import Coordination
import Synchronization

/// A link's tuning (`DeviceLink.tune`), run beside its runs rather than before them: a run's script goes
/// out while the tuning's commands wait on the controller, and a controller that never answers one
/// (LE Set PHY) costs the data nothing. `connect` starts it once the data flows (`start`); the rig runs
/// it as a child task beside a connection's runs (`run`). `parameters` is what a run's provenance reads: `being applied` until the tuning reports, then
/// the connection parameters in force (or what was requested, when the controller did not tell).
public final class LinkTuningBeside: Sendable {
    private struct State {
        var text: String
        /// The tuning was begun, by `run` or `start`.
        var begun = false
    }
    /// The tuning's report, once it has ended.
    private let outcome = Latch<LinkTuningReport?>()
    private let state: Mutex<State>
    private let base: String
    private let request: LinkTuningRequest?
    private let tune: @Sendable (LinkTuningRequest) async -> LinkTuningReport?

    /// The tuning of `link` with `request` (none when nil); `base` is the text before any tuning
    /// (`MTU 247`, the transport).
    public convenience init(link: DeviceLink, request: LinkTuningRequest?, base: String) {
        self.init(request: request, base: base) { await link.tune($0) }
    }

    /// A tuning that `tune` carries out; it reports what is in force, or nil when it could not tell.
    public init(
        request: LinkTuningRequest?,
        base: String,
        tune: @escaping @Sendable (LinkTuningRequest) async -> LinkTuningReport?
    ) {
        self.base = base
        self.request = request
        self.tune = tune
        state = Mutex(State(text: request.map { "\(base), \($0.name) being applied" } ?? base))
    }

    /// Carries the tuning out in the calling task and returns when it has ended (its steps are bounded
    /// by their timeouts) or the task is cancelled (the link is closing; the text then stays as it
    /// was). Once: a later call, one after `start`, and a tuning nobody asked for return at once.
    public func run() async {
        guard let request, begin() else { return }
        await perform(request)
    }

    /// Starts the tuning in a task of its own, for a one-shot command whose flow has no task to run it
    /// in (`connect` starts it once the data flows); later calls do nothing.
    public func start() {
        guard let request, begin() else { return }
        Task { await perform(request) }
    }

    private func perform(_ request: LinkTuningRequest) async {
        let report = await tune(request)
        if !Task.isCancelled {
            let applied = report?.connection.value.map { "\($0)" } ?? "\(request.name) requested"
            state.withLock { $0.text = "\(base), \(applied)" }
        }
        outcome.settle(report)
    }

    private func begin() -> Bool {
        state.withLock { state in
            defer { state.begun = true }
            return !state.begun
        }
    }

    /// The link parameters as known now.
    public var parameters: String { state.withLock { $0.text } }

    /// The tuning's report once it has ended (its steps are bounded by their timeouts): nil when none was
    /// asked for or begun, or the tuning could not tell.
    public func report() async -> LinkTuningReport? {
        guard request != nil, state.withLock({ $0.begun }) else { return nil }
        return await outcome.wait()
    }
}
