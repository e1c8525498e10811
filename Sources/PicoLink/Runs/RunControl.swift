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
    /// How long `cell_off` may take after a run that did not end normally (`leaveSafe`).
    public let cellOffLimit: Duration

    private struct State {
        var ended = false
        var stopping = false
        var linkClosed = false
        var timedOut = false
        var limitPassed = false
        /// The first package's breach of a limit, as `check` found it.
        var breach: String?
    }
    private let state = Mutex(State())
    private let end = Latch<Void>()
    /// Settled when the first `stop` has done what it does.
    private let stopFinished = Latch<Void>()
    /// The limits the run's packages are checked against (`check`), and where a breach goes (`enforce`).
    public let limits: RunLimits
    private let breaches: AsyncStream<String>
    private let breach: AsyncStream<String>.Continuation

    /// Control of the run about to start on `session`; `interruption` is the recorder's, when it has one.
    public init(
        session: PicoSession,
        interruption: RunInterruption = RunInterruption(),
        abortReplyLimit: Duration = .seconds(2),
        endLimit: Duration = .seconds(2),
        cellOffLimit: Duration = .seconds(2),
        limits: RunLimits = RunLimits()
    ) {
        self.session = session
        self.interruption = interruption
        self.abortReplyLimit = abortReplyLimit
        self.endLimit = endLimit
        self.cellOffLimit = cellOffLimit
        self.limits = limits
        (breaches, breach) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(1))
    }

    /// Checks a package of the run against `limits`, on the recording's path: past a limit, `enforce`
    /// stops the run with the limit as its reason.
    public func check(_ package: PicoPackage) {
        guard let reason = limits.breach(in: package) else { return }
        let first = state.withLock { state in
            defer { state.breach = state.breach ?? "limit: \(reason)" }
            return state.breach == nil
        }
        if first { breach.yield("limit: \(reason)") }
    }

    /// Stops the run when `check` finds a package past a limit, or once `limits.longestRun` has passed;
    /// returns when the run has ended (`runEnded`) or the calling task is cancelled. Run it beside the
    /// recording (`async let`).
    public func enforce() async {
        await withTaskGroup(of: Void.self) { group in
            if let longest = limits.longestRun {
                group.addTask {
                    await self.stop(after: longest, reason: "limit: the run took longer than \(longest)")
                    if self.timedOut { self.state.withLock { $0.limitPassed = true } }
                }
            }
            group.addTask {
                for await reason in self.breaches {
                    self.state.withLock { $0.limitPassed = true }
                    await self.stop(reason)
                    return
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Whether the stop closed the link (the device did not answer `Z`, or did not end its script).
    public var closedTheLink: Bool { state.withLock { $0.linkClosed } }

    /// Whether `stop` was asked.
    public var wasStopped: Bool { interruption.reason != nil }

    /// The run has ended (its events are over): a stop in progress sends nothing more and closes nothing.
    public func runEnded() {
        state.withLock { $0.ended = true }
        end.settle(())
        breach.finish()
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
        defer { stopFinished.settle(()) }
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

    /// Makes the instrument safe after a run that did not end normally (a device error, an abort, a
    /// timeout, a lost link, a stop, a failed output): when the device may still run the script
    /// (`scriptEnded` false and the link up) it is aborted first; then the cell is switched off
    /// (`PicoSession.switchCellOff`). With the link gone the cell's state is unknown: the next connection
    /// finds a script left running and switches the cell off then (`PicoSession.takeOver`).
    ///
    /// A stop under way (a signal's, which sent `Z` while the recording gave up on a failed output) is
    /// waited for instead of sending a second `Z`; no stop starts after this.
    public func leaveSafe(scriptEnded: Bool) async -> CellOutcome {
        let stopUnderWay = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return state.stopping
        }
        runEnded()
        if stopUnderWay { _ = await stopFinished.wait(upTo: abortReplyLimit + endLimit, on: session.clock) }
        guard session.isConnected else {
            if closedTheLink { return .unknown("the link was closed after the device did not stop") }
            return .unknown("the link was lost; the next connection switches the cell off")
        }
        if !scriptEnded, !stopUnderWay {
            do throws(PicoSessionError) {
                try await session.abort(timeout: abortReplyLimit)
            } catch {
                if case .connectionLost = error {
                    return .unknown("the link was lost; the next connection switches the cell off")
                }
                session.close()
                return .unknown("no reply to Z (\(error)); the link was closed")
            }
        }
        return await session.switchCellOff(within: cellOffLimit)
    }

    /// Whether `enforce` stopped the run at one of its `limits`.
    public var limitPassed: Bool { state.withLock { $0.limitPassed } }

    /// The first limit a package passed (`limit: …`), whether or not the run could still be stopped for
    /// it: a run whose script ended before its `Z` went out is complete, and passed the limit all the
    /// same.
    public var limitBreach: String? { state.withLock { $0.breach } }

    /// Whether `stop(after:reason:)` stopped the run.
    public var timedOut: Bool { state.withLock { $0.timedOut } }

    private func closeLink() {
        interruption.add("the link was closed")
        state.withLock { $0.linkClosed = true }
        session.close()
    }
}
