public import Coordination
import Synchronization

/// Keeps one device connected: opens a connection, hands it to a body that uses it until the link is
/// lost or the work is done, closes it, and opens it again after a lost link — at once, and then with
/// the backoff of a `ReconnectPolicy` (delays that grow to a cap, with jitter) while attempts fail.
/// Every wait is on an injected clock and ends early when the keeper is stopped.
///
/// It is the one reconnecting mechanism: `ManagedDevice` (what `DeviceManager` hands embedders) keeps
/// a `PicoSession` with it, and the rig's device supervisor runs its schedule as the body.
///
/// A keeper runs once (`run`); `stop(reason:)` ends it, and the wait in progress with it.
public final class DeviceKeeper<Connection: Sendable>: Sendable {
    /// How the body ended with a connection.
    public enum ServeEnd: Sendable, Equatable {
        /// The link went away (with its reason): the keeper reconnects unless stopped.
        case linkLost(String)
        /// The work is done (with its reason): the keeper ends.
        case finished(String)
    }

    /// How a keeper's `run` ended.
    public enum End: Sendable, Equatable {
        /// `stop(reason:)` was called.
        case stopped(String)
        /// The body said the work is done.
        case finished(String)
        /// The policy allowed no more retries; the reason of the last failure.
        case gaveUp(String)

        /// The reason, whichever way it ended.
        public var reason: String {
            switch self {
            case .stopped(let reason), .finished(let reason), .gaveUp(let reason): reason
            }
        }
    }

    /// The backoff between failed attempts.
    public let policy: ReconnectPolicy
    /// The clock every wait is measured on.
    public let clock: any TimeSource
    private let random: @Sendable () -> Double
    private let state = Mutex(State())

    /// What a wait blocks on: signalled by every wake and stop.
    private let signal: WakeSignal
    /// Bumped by every wake and stop: a wait ends when it changes.
    private let wakes = Atomic<UInt64>(0)
    /// `wakes` at the last `clearWake`: a wait that ends on an earlier wake ends when `wakes` differs.
    private let cleared = Atomic<UInt64>(0)

    private struct State {
        var stopReason: String?
        var failures = 0
        var lastFailure: String?
    }

    /// A keeper whose waits run on `clock`; `random` gives the jitter (a number in [0, 1)).
    public init(
        policy: ReconnectPolicy,
        clock: any TimeSource = SystemClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.policy = policy
        self.clock = clock
        self.random = random
        signal = WakeSignal(clock: clock)
    }

    /// Why the keeper was stopped, once it was.
    public var stopReason: String? { state.withLock { $0.stopReason } }

    /// Failures in a row: failed connection attempts, lost links and whatever the body counts
    /// (`noteFailure`); `resetFailures` clears them.
    public var consecutiveFailures: Int { state.withLock { $0.failures } }

    /// The reason of the last failed connection attempt, or the last lost link.
    public var lastFailure: String? { state.withLock { $0.lastFailure } }

    /// Counts a failure (a failed run, for the body) and returns the count in a row.
    @discardableResult
    public func noteFailure() -> Int {
        state.withLock { state in
            state.failures += 1
            return state.failures
        }
    }

    /// Clears the failures in a row (a run that went well).
    public func resetFailures() { state.withLock { $0.failures = 0 } }

    /// Stops the keeper: the wait in progress ends, no attempt starts after this one, and the body
    /// sees `stopReason` (it ends its work and returns). The first reason given is kept.
    public func stop(reason: String) {
        state.withLock { state in
            if state.stopReason == nil { state.stopReason = reason }
        }
        wake()
    }

    /// Connects, serves and reconnects until stopped, finished or given up.
    ///
    /// - `open` makes a connection (`attempt` counts from 1 and grows while attempts fail).
    /// - `serve` uses it until the link is lost or the work is done; it returns soon after `stop`.
    /// - `close` ends it, whichever way `serve` returned (also when a stop came while it was opening).
    /// - `onStatus` hears each change: connecting, connected, waiting to reconnect, disconnecting and
    ///   disconnected (with the reason when the link was lost, or when the policy gave up).
    /// - `retryFloor` may lengthen a wait: given the failures in a row, the least delay in seconds.
    public func run(
        open: @Sendable (_ attempt: Int) async throws -> Connection,
        serve: @Sendable (Connection) async -> ServeEnd,
        close: @Sendable (Connection) async -> Void,
        onStatus: @Sendable (DeviceStatus) -> Void = { _ in },
        retryFloor: @Sendable (_ failures: Int) -> Double? = { _ in nil }
    ) async -> End {
        var attempt = 0
        while stopReason == nil {
            attempt += 1
            onStatus(.connecting(attempt: attempt))
            let connection: Connection
            do {
                connection = try await open(attempt)
            } catch {
                if stopReason != nil { break }
                let reason = "\(error)"
                let failures = state.withLock { state in
                    state.failures += 1
                    state.lastFailure = reason
                    return state.failures
                }
                guard var delay = policy.delay(beforeRetry: min(attempt, 30), random: random()) else {
                    onStatus(.disconnected(reason: reason))
                    return .gaveUp(reason)
                }
                if let floor = retryFloor(failures) { delay = max(delay, floor) }
                // Measured from before the report: whoever hears it may move a manual clock on.
                let deadline = clock.now + .seconds(delay)
                onStatus(.waitingToReconnect(attempt: attempt + 1, delay: delay))
                await pause(until: deadline)
                continue
            }
            if stopReason != nil {
                await close(connection)
                break
            }
            attempt = 0
            onStatus(.connected)
            let end = await serve(connection)
            if stopReason != nil { onStatus(.disconnecting) }
            await close(connection)
            switch end {
            case .finished(let reason):
                onStatus(.disconnected(reason: nil))
                return stopReason.map(End.stopped) ?? .finished(reason)
            case .linkLost(let reason):
                guard stopReason == nil else { break }
                state.withLock { state in
                    state.failures += 1
                    state.lastFailure = reason
                }
                onStatus(.disconnected(reason: reason))
            }
        }
        onStatus(.disconnected(reason: nil))
        return .stopped(stopReason ?? "stopped")
    }

    // MARK: Waits that a stop or a wake ends

    /// Waits `duration` on the clock, unless stopped first (or woken, with `endsOnEarlierWake`).
    public func pause(for duration: Duration, endsOnEarlierWake: Bool = false) async {
        await pause(until: clock.now + duration, endsOnEarlierWake: endsOnEarlierWake)
    }

    /// Waits until the clock's `now` reaches `deadline`, unless stopped first (or woken, with
    /// `endsOnEarlierWake`; without it, only a wake that comes during the wait ends it).
    public func pause(until deadline: Duration, endsOnEarlierWake: Bool = false) async {
        guard let reference = waitReference(endsOnEarlierWake) else { return }
        while stopReason == nil, wakes.load(ordering: .acquiring) == reference, deadline > clock.now {
            await signal.wait(upTo: deadline - clock.now)
            if Task.isCancelled { return }
        }
    }

    /// Waits until the wall clock reads `wallTime` (a schedule's slot: `TimeSource.sleep(untilWallTime:)`
    /// follows the wall clock however it is set), unless stopped first (or woken, with
    /// `endsOnEarlierWake`).
    public func pause(untilWallTime wallTime: Double, endsOnEarlierWake: Bool = false) async {
        guard waitReference(endsOnEarlierWake) != nil else { return }
        let clock = clock
        let signal = signal
        // The first to end — the wall clock reaching the time, or a wake — ends the other.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(untilWallTime: wallTime) }
            group.addTask { await signal.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    /// The wake count a wait ends at a change of, or nil when it must not start (stopped, or woken
    /// since the last `clearWake` with `endsOnEarlierWake`). Forgets the signal of a wake the
    /// reference already counts, so that only a later one ends the wait.
    private func waitReference(_ endsOnEarlierWake: Bool) -> UInt64? {
        signal.reset()
        let now = wakes.load(ordering: .acquiring)
        let reference = endsOnEarlierWake ? cleared.load(ordering: .acquiring) : now
        guard stopReason == nil, now == reference else { return nil }
        return reference
    }

    /// Waits until woken or stopped.
    public func pauseUntilWoken() async {
        await pause(for: .seconds(86_400 * 365), endsOnEarlierWake: true)
    }

    /// From now on, a wait that ends on a wake ends only at a wake that comes after this call: a body
    /// calls it before it looks at what there is to do, then waits.
    public func clearWake() {
        cleared.store(wakes.load(ordering: .acquiring), ordering: .releasing)
    }

    /// Ends the wait in progress, or the next wait that ends on a wake (the link went away while idle,
    /// work came).
    public func wake() {
        wakes.add(1, ordering: .releasing)
        signal.signal()
    }
}
