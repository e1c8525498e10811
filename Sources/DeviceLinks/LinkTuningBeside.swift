public import BLEHost
import Synchronization

/// A link's tuning (`DeviceLink.tune`), run beside its runs rather than before them: a run's script goes
/// out while the tuning's commands wait on the controller, and a controller that never answers one
/// (LE Set PHY) costs the data nothing. `connect` starts it once the data flows, the rig as the link
/// opens. `parameters` is what a run's provenance reads: `being applied` until the tuning reports, then
/// the connection parameters in force (or what was requested, when the controller did not tell).
public final class LinkTuningBeside: Sendable {
    private struct State {
        var text: String
        var task: Task<LinkTuningReport?, Never>?
    }
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

    /// Starts the tuning; later calls, and a tuning nobody asked for, do nothing.
    public func start() {
        guard let request else { return }
        state.withLock { state in
            guard state.task == nil else { return }
            state.task = Task { [base, tune, weak self] in
                let report = await tune(request)
                guard !Task.isCancelled else { return report }
                let applied = report?.connection.value.map { "\($0)" } ?? "\(request.name) requested"
                self?.state.withLock { $0.text = "\(base), \(applied)" }
                return report
            }
        }
    }

    /// The link parameters as known now.
    public var parameters: String { state.withLock { $0.text } }

    /// Stops a tuning still in progress (the link is closing); the text stays as it was.
    public func cancel() { state.withLock { $0.task?.cancel() } }

    /// The tuning's report once it has ended (its steps are bounded by their timeouts): nil when none was
    /// asked for or started, or the tuning could not tell.
    public func report() async -> LinkTuningReport? { await state.withLock { $0.task }?.value ?? nil }
}
