import BLEHost
import Synchronization

/// A rig device's link tuning, run beside its runs rather than before them: the first run's script
/// goes out while the tuning's commands wait on the controller, and a controller that never answers
/// one (LE Set PHY) costs the data nothing. The text the runs' provenance reads says what is known at
/// the time: `being applied` until the tuning reports, then the parameters in force.
final class RigLinkTuning: Sendable {
    private struct State {
        var text: String
        var task: Task<Void, Never>?
    }
    private let state: Mutex<State>

    /// Starts `tune` with `request` (nothing when nil); `base` is the text before any tuning (`MTU 247`,
    /// the transport). `tune` returns the parameters in force, or nil when it could not tell.
    init(base: String, request: LinkTuningRequest?, tune: @escaping @Sendable (LinkTuningRequest) async -> String?) {
        state = Mutex(State(text: request.map { "\(base), \($0.name) being applied" } ?? base))
        guard let request else { return }
        let task = Task { [weak self] in
            let applied = await tune(request)
            guard !Task.isCancelled else { return }
            self?.state.withLock { $0.text = "\(base), " + (applied ?? "\(request.name) requested") }
        }
        state.withLock { $0.task = task }
    }

    /// The link parameters as known now.
    var parameters: String { state.withLock { $0.text } }

    /// Stops a tuning still in progress (the link is closing).
    func cancel() { state.withLock { $0.task?.cancel() } }

    /// Returns once the tuning has ended, done or cancelled.
    func ended() async { await state.withLock { $0.task }?.value }
}
