import BLEHost
import Coordination
import Synchronization

/// One device of a `DeviceManager`: a `DeviceKeeper` holds its session open — it connects through
/// the connector closure, reconnects after a lost link (at once, then with the backoff of its
/// `ReconnectPolicy`) until `disconnect()` — while the device reports its status on `statuses`,
/// forwards every package of its runs to `packages`, and records runs into sinks.
public final class ManagedDevice: Sendable {
    /// Opens a link to the device (`DeviceLink.connection` of a link `LinkOpener` opened, a simulator's
    /// socketpair, a serial port's channel).
    public typealias Connector = @Sendable () async throws -> DeviceConnection

    /// The name the device was added under; its sessions name their packages and runs with it.
    public let name: String
    /// When to try again after a failed connection attempt.
    public let policy: ReconnectPolicy
    /// Status changes, in order (one consumer).
    public let statuses: AsyncStream<DeviceStatus>
    /// Every package of every run on this device (one consumer).
    public let packages: AsyncStream<PicoPackage>

    private let connector: Connector
    private let clock: any TimeSource
    private let statusContinuation: AsyncStream<DeviceStatus>.Continuation
    private let packageContinuation: AsyncStream<PicoPackage>.Continuation
    private let state = Mutex(State())
    private typealias Keeper = DeviceKeeper<Connected>

    /// A link with its session open.
    private struct Connected: Sendable {
        let link: DeviceConnection
        let session: PicoSession
    }

    private struct State {
        var keeper: Keeper?
        var keeping: Task<Void, Never>?
        var session: PicoSession?
        var status = DeviceStatus.disconnected(reason: nil)
        /// Callers of `connect()` waiting for a session (or for the keeper to give up).
        var waiters: [CheckedContinuation<PicoSession, any Error>] = []
    }

    init(name: String, policy: ReconnectPolicy, clock: any TimeSource, connector: @escaping Connector) {
        self.name = name
        self.policy = policy
        self.clock = clock
        self.connector = connector
        (statuses, statusContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        (packages, packageContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        statusContinuation.yield(.disconnected(reason: nil))
    }

    /// The status now.
    public var status: DeviceStatus { state.withLock { $0.status } }

    /// The session while connected.
    public var session: PicoSession? { state.withLock { $0.session } }

    /// Connects (retrying per the policy) and returns the session; after a lost link, waits for the
    /// reconnection. Throws the last failure when the policy gives up.
    @discardableResult
    public func connect() async throws(PicoSessionError) -> PicoSession {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let (session, keeper) = state.withLock { state -> (PicoSession?, Keeper?) in
                    if let session = state.session { return (session, nil) }
                    state.waiters.append(continuation)
                    guard state.keeper == nil else { return (nil, nil) }
                    let keeper = Keeper(policy: policy, clock: clock)
                    state.keeper = keeper
                    return (nil, keeper)
                }
                if let session { return continuation.resume(returning: session) }
                if let keeper { start(keeper) }
            }
        } catch let error as PicoSessionError {
            throw error
        } catch {
            throw .notAPico("connector failed: \(error)")
        }
    }

    /// Runs `script`; the returned events are also forwarded to `packages`, and the status is
    /// `.running` until the run ends.
    public func run(_ script: PicoScript, title: String = "script") async throws(PicoSessionError) -> PicoRun {
        guard let session = self.session else {
            throw .connectionLost("\(GATTError.disconnected(.closed))")
        }
        let run = try await session.run(script, title: title)
        setStatus(.running(run: run.info.run))
        let (events, continuation) = AsyncThrowingStream<PicoEvent, any Error>.makeStream()
        let packages = packageContinuation
        Task { [self] in
            do {
                for try await event in run.events {
                    if case .package(let package) = event { packages.yield(package) }
                    continuation.yield(event)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
            if case .running = status, session.isConnected { setStatus(.connected) }
        }
        return PicoRun(info: run.info, events: PicoEventStream(stream: events, backlog: nil))
    }

    /// Runs `script` and records it into `sinks` (as the CLI and the rig record theirs), its packages
    /// also on `packages`; returns how the run ended, as the sinks were told.
    public func record(
        _ script: PicoScript,
        title: String = "script",
        into sinks: [any SampleSink]
    ) async throws -> RunEnd {
        let run = try await run(script, title: title)
        return try await RunRecorder(sinks: sinks).record(run)
    }

    /// Disconnects, stops reconnecting, and returns once the link is closed.
    public func disconnect() async {
        let (keeper, keeping) = state.withLock { state in
            defer {
                state.keeper = nil
                state.keeping = nil
            }
            return (state.keeper, state.keeping)
        }
        keeper?.stop(reason: "disconnected")
        await keeping?.value
    }

    /// Ends the streams (after `disconnect()`).
    func finishStreams() {
        statusContinuation.finish()
        packageContinuation.finish()
    }

    private func setStatus(_ status: DeviceStatus) {
        state.withLock { $0.status = status }
        statusContinuation.yield(status)
    }

    private func start(_ keeper: Keeper) {
        let keeping = Task { [self] in
            let end = await keeper.run(
                open: { [self] _ in
                    let link = try await connector()
                    do {
                        return Connected(link: link, session: try await link.openSession(name: name, clock: clock))
                    } catch {
                        link.endCarrier()
                        await link.close()
                        throw error
                    }
                },
                serve: { [self] connected in await hold(connected.session, keeper: keeper) },
                close: { connected in
                    connected.session.close()
                    await connected.link.close()
                },
                onStatus: { [self] status in setStatus(status) }
            )
            let waiters = state.withLock { state in
                defer { state.waiters = [] }
                if state.keeper === keeper { state.keeper = nil }
                return state.waiters
            }
            let failure: PicoSessionError =
                if case .gaveUp(let reason) = end { .connectionLost(reason) } else { .cancelled }
            for waiter in waiters { waiter.resume(throwing: failure) }
        }
        state.withLock { $0.keeping = keeping }
    }

    /// Hands the session to those waiting for it and holds it until its link ends or the device is
    /// disconnected.
    private func hold(_ session: PicoSession, keeper: Keeper) async -> Keeper.ServeEnd {
        let lost = Mutex<String?>(nil)
        session.channel.onEnd { reason in
            lost.withLock { $0 = reason }
            keeper.wake()
        }
        let waiters = state.withLock { state in
            state.session = session
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: session) }
        while keeper.stopReason == nil {
            keeper.clearWake()
            guard session.isConnected else { break }
            await keeper.pauseUntilWoken()
        }
        state.withLock { $0.session = nil }
        if let reason = keeper.stopReason { return .finished(reason) }
        return .linkLost(lost.withLock { $0 } ?? "\(GATTError.disconnected(.closed))")
    }
}
