import Coordination
import PicoLink
import Synchronization

/// How a signal ends the console: during a run, the run is stopped (`RunControl`: `Z`, and the link
/// closed if the device does not end its script) and recorded to its end (the files get their end
/// marker with the reason), then the console leaves with the signal's status; at the prompt it leaves
/// at once (every run is in the files already).
final class ConsoleStop: Sendable {
    private struct Run {
        let control: RunControl
        let recorded: Latch<Void>
    }
    private struct State {
        var reason: StopReason?
        var run: Run?
    }
    private let state = Mutex(State())

    /// The stop, once one came.
    var reason: StopReason? { state.withLock { $0.reason } }

    /// A run starts on `session`: a stop from now on stops it through the control returned.
    func runStarted(on session: PicoSession, limits: RunLimits = RunLimits()) -> RunControl {
        let control = RunControl(session: session, limits: limits)
        state.withLock { $0.run = Run(control: control, recorded: Latch()) }
        return control
    }

    /// The run is recorded to its end (its files finished).
    func runEnded() {
        let run = state.withLock { state -> Run? in
            defer { state.run = nil }
            return state.run
        }
        run?.control.runEnded()
        run?.recorded.settle(())
    }

    /// Records `reason`; when a run is going, stops it and returns once it is recorded to its end.
    func stop(_ reason: StopReason) async {
        let run = state.withLock { state -> Run? in
            state.reason = state.reason ?? reason
            return state.run
        }
        guard let run else { return }
        await run.control.stop(reason.description)
        await run.recorded.wait()
    }
}
