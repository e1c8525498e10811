import PicoLink
import Synchronization

/// How a signal ends the console: during a run, the run is aborted with `Z` and ends as the device
/// ends it (the files get their end marker with the reason), then the console leaves with the
/// signal's status; at the prompt it leaves at once (every run is in the files already).
final class ConsoleStop: Sendable {
    private struct State {
        var reason: StopReason?
        var interruption: RunInterruption?
    }
    private let state = Mutex(State())

    /// The stop, once one came.
    var reason: StopReason? { state.withLock { $0.reason } }

    /// A run starts: a stop from now on interrupts it.
    func runStarted() -> RunInterruption {
        let interruption = RunInterruption()
        state.withLock { $0.interruption = interruption }
        return interruption
    }

    func runEnded() { state.withLock { $0.interruption = nil } }

    /// Records `reason`; true when a run was going (and is now marked interrupted).
    func stop(_ reason: StopReason) -> Bool {
        let interruption = state.withLock { state -> RunInterruption? in
            state.reason = state.reason ?? reason
            return state.interruption
        }
        interruption?.interrupt(reason.description)
        return interruption != nil
    }
}
