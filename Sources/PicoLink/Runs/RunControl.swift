public import Coordination
import Synchronization

/// The one way a run in progress is stopped from outside: a signal, the rig's stop or reload, a run
/// timeout, Ctrl-C in the console.
///
/// The first reason given is kept for the records (through `interruption`, which `RunRecorder` and the
/// rig read), and the device is asked to abort (`Z`). When it does not answer within
/// `abortReplyLimit`, or answers but does not end its script within `endLimit` after, the link is
/// closed: the run's events then end as a lost link, and whoever records it ends the run with the
/// reason and what the stop found (`no reply to Z (…)`, `the device did not end its script within …`).
/// A run that ends by itself meanwhile (`runEnded()`) is left alone.
public final class RunControl: Sendable {
    /// The session the run streams on.
    public let session: PicoSession
    /// Why the run was stopped, with what the stop found; nil while nobody stopped it.
    public let interruption: RunInterruption
    /// How long the device has to answer `Z`.
    public let abortReplyLimit: Duration
    /// How long the device has, after answering `Z`, to end its script.
    public let endLimit: Duration

    private struct State {
        var ended = false
        var stopping = false
        var linkClosed = false
        var timedOut = false
    }
    private let state = Mutex(State())
    private let end = Latch<Void>()

    /// Control of the run about to start on `session`; `interruption` is the recorder's, when it has one.
    public init(
        session: PicoSession,
        interruption: RunInterruption = RunInterruption(),
        abortReplyLimit: Duration = .seconds(2),
        endLimit: Duration = .seconds(2)
    ) {
        self.session = session
        self.interruption = interruption
        self.abortReplyLimit = abortReplyLimit
        self.endLimit = endLimit
    }

    /// Whether the stop closed the link (the device did not answer `Z`, or did not end its script).
    public var closedTheLink: Bool { state.withLock { $0.linkClosed } }

    /// Whether `stop` was asked.
    public var wasStopped: Bool { interruption.reason != nil }

    /// The run has ended (its events are over): a stop in progress sends nothing more and closes nothing.
    public func runEnded() {
        state.withLock { $0.ended = true }
        end.settle(())
    }

    /// Stops the run with `reason` (the first reason given is the one recorded): sends `Z` and returns
    /// once the device has ended its script, or once the link was closed because it did not. A second
    /// call while the first is under way only returns.
    public func stop(_ reason: String) async {
        interruption.interrupt(reason)
        let first = state.withLock { state -> Bool in
            guard !state.ended, !state.stopping else { return false }
            state.stopping = true
            return true
        }
        guard first else { return }
        do throws(PicoSessionError) {
            try await session.abort(timeout: abortReplyLimit)
        } catch {
            if case .connectionLost = error { return }
            interruption.add("no reply to Z (\(error))")
            return closeLink()
        }
        if await end.wait(upTo: endLimit, on: session.clock) == nil, !state.withLock({ $0.ended }) {
            interruption.add("the device did not end its script within \(endLimit) of Z")
            closeLink()
        }
    }

    /// Stops the run with `reason` once `limit` has passed on `clock` (the session's unless given),
    /// unless the run ended or the calling task was cancelled first: a run timeout, as a child task of
    /// the run's recording (`async let`), so that it ends with it.
    public func stop(after limit: Duration, reason: String, clock: (any TimeSource)? = nil) async {
        let clock = clock ?? session.clock
        guard (try? await clock.sleep(until: clock.now + limit)) != nil, !state.withLock({ $0.ended }) else { return }
        state.withLock { $0.timedOut = true }
        await stop(reason)
    }

    /// Whether `stop(after:reason:)` stopped the run.
    public var timedOut: Bool { state.withLock { $0.timedOut } }

    private func closeLink() {
        interruption.add("the link was closed")
        state.withLock { $0.linkClosed = true }
        session.close()
    }
}
