public import BLEHost
import Synchronization

/// One device of a `DeviceManager`: connects through its connector closure, reports its status on
/// `statuses`, forwards every package of its runs to `packages`, and reconnects with backoff when its
/// `ReconnectPolicy` allows and the link was lost (not when `disconnect()` was asked).
public final class ManagedDevice: Sendable {
    /// Makes a connected `GATTClient` to the device (a radio connection, or a simulator's socketpair).
    public typealias Connector = @Sendable () async throws -> GATTClient

    /// The name the device was added under; its sessions name their packages and runs with it.
    public let name: String
    /// When to try again after a failed connection attempt or a lost link.
    public let policy: ReconnectPolicy
    /// Status changes, in order (one consumer).
    public let statuses: AsyncStream<DeviceStatus>
    /// Every package of every run on this device (one consumer).
    public let packages: AsyncStream<PicoPackage>

    private let connector: Connector
    private let statusContinuation: AsyncStream<DeviceStatus>.Continuation
    private let packageContinuation: AsyncStream<PicoPackage>.Continuation
    private let state = Mutex(State())

    struct State {
        var session: PicoSession?
        var wanted = false
        var status = DeviceStatus.disconnected(reason: nil)
        /// Bumped per connection, so that a stale close does not trigger a reconnect.
        var generation = 0
    }

    init(name: String, policy: ReconnectPolicy, connector: @escaping Connector) {
        self.name = name
        self.policy = policy
        self.connector = connector
        (statuses, statusContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        (packages, packageContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        statusContinuation.yield(.disconnected(reason: nil))
    }

    /// The status now.
    public var status: DeviceStatus { state.withLock { $0.status } }

    /// The session while connected.
    public var session: PicoSession? { state.withLock { $0.session } }

    /// Connects (retrying per the policy) and returns the session.
    @discardableResult
    public func connect() async throws(PicoSessionError) -> PicoSession {
        if let session = state.withLock({ state -> PicoSession? in
            state.wanted = true
            return state.session
        }) {
            return session
        }
        return try await connectLoop(retriesBefore: 0)
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

    /// Disconnects and stops reconnecting.
    public func disconnect() {
        let session = state.withLock { state -> PicoSession? in
            state.wanted = false
            state.generation += 1
            defer { state.session = nil }
            return state.session
        }
        setStatus(.disconnecting)
        session?.close()
        setStatus(.disconnected(reason: nil))
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

    /// Connects, retrying as the policy says. `retriesBefore`: how many retries the first attempt here
    /// comes after (0 for a first connect; 1 after a lost link, whose first reconnect is retry 1).
    /// Attempts are numbered from 1 in each case, as the statuses show them.
    private func connectLoop(retriesBefore: Int) async throws(PicoSessionError) -> PicoSession {
        var attempt = 1
        while true {
            setStatus(.connecting(attempt: attempt))
            let failure: PicoSessionError
            do {
                let client = try await connector()
                let session = try await PicoSession.open(client: client, name: name)
                let generation = state.withLock { state -> Int? in
                    guard state.wanted else { return nil }
                    state.generation += 1
                    state.session = session
                    return state.generation
                }
                guard let generation else {
                    session.close()
                    throw PicoSessionError.connectionLost("\(GATTError.disconnected(.closed))")
                }
                setStatus(.connected)
                client.bearer.onClose { [self] reason in linkLost(reason, generation: generation) }
                return session
            } catch let error as PicoSessionError {
                failure = error
            } catch {
                failure = .notAPico("connector failed: \(error)")
            }
            guard state.withLock({ $0.wanted }),
                let delay = policy.delay(beforeRetry: retriesBefore + attempt, random: Double.random(in: 0..<1))
            else {
                setStatus(.disconnected(reason: "\(failure)"))
                throw failure
            }
            attempt += 1
            setStatus(.waitingToReconnect(attempt: attempt, delay: delay))
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    private func linkLost(_ reason: GATTError, generation: Int) {
        let reconnect = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.session = nil
            return state.wanted
        }
        guard reconnect || state.withLock({ $0.generation == generation }) else { return }
        setStatus(.disconnected(reason: "\(reason)"))
        guard reconnect, let delay = policy.delay(beforeRetry: 1, random: Double.random(in: 0..<1)) else { return }
        setStatus(.waitingToReconnect(attempt: 1, delay: delay))
        Task { [self] in
            try? await Task.sleep(for: .seconds(delay))
            guard state.withLock({ $0.wanted && $0.generation == generation }) else { return }
            _ = try? await connectLoop(retriesBefore: 1)
        }
    }
}
