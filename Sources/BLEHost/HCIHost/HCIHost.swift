import BLEWire
public import Coordination
import Synchronization

/// A user-space Bluetooth LE host (central role) over any `HCITransport`: controller initialisation,
/// scanning, connections, ACL flow control and fragmentation, L2CAP fixed channels ATT (4) and LE
/// signaling (5). Each connection's `att` is an `ATTTransport`, so `GATTClient` runs over it unchanged.
///
/// The receive path runs synchronously on the transport's reader thread: an ACL packet is reassembled
/// in the connection's reused buffer and its ATT PDU is handed to the bearer in the same call.
public final class HCIHost: Sendable {
    /// The transport to the controller; `shutdown()` closes it.
    public let transport: any HCITransport
    /// The settings the host was created with.
    public let configuration: HCIHostConfiguration
    let state = Mutex(State())
    let commandGate = AsyncGate()
    /// The outstanding command's timeout (one at a time, like the command).
    let commandDeadline: LazyDeadline
    /// The time of every timeout on this host: HCI commands, SMP commands.
    let clock: any TimeSource
    let connectGate = AsyncGate()
    /// Where outgoing ACL packets are built; used only under `state`'s lock.
    let scratch = ScratchBuffer(capacity: 4 + 1024)

    /// The command waiting for its Command Complete or Status. A class, as is `PendingConnect`: the
    /// continuation's type is resilient, and held inline it would give `State` a layout computed at run
    /// time, looked up by every lock of it (one per ACL packet).
    final class PendingCommand: Sendable {
        let opcode: UInt16
        let continuation: CheckedContinuation<Result<HCICommandResult, HCIHostError>, Never>

        init(opcode: UInt16, continuation: CheckedContinuation<Result<HCICommandResult, HCIHostError>, Never>) {
            self.opcode = opcode
            self.continuation = continuation
        }
    }

    /// The connection attempt under way. `cancelled` changes only under the state lock, which is what
    /// makes the unchecked conformance sound.
    final class PendingConnect: @unchecked Sendable {
        let attempt: UInt64
        let address: BluetoothAddress
        let continuation: CheckedContinuation<Result<HCIConnection, HCIHostError>, Never>
        var cancelled: HCIHostError?

        init(
            attempt: UInt64,
            address: BluetoothAddress,
            continuation: CheckedContinuation<Result<HCIConnection, HCIHostError>, Never>
        ) {
            self.attempt = attempt
            self.address = address
            self.continuation = continuation
        }
    }

    struct State {
        var started = false
        var closed: TransportError?
        var controller: HCIControllerInfo?
        var ownAddressType: UInt8 = 0
        var pendingCommand: PendingCommand?
        var pendingConnect: PendingConnect?
        var connectAttempts: UInt64 = 0
        var scan: Boxed<AsyncStream<HCIAdvertisement>.Continuation>?
        /// Counts scans started, so that a scan's timeout stops that scan and never a later one.
        var scanGeneration: UInt64 = 0
        var connections: [UInt16: HCIConnection] = [:]
        var flow = HCIACLFlow()
        var statistics = HCIHostStatistics()
        /// Link tuning's waits for LE Meta events (see `HCIConnection+Tuning`).
        var linkEventWaiters: [ObjectIdentifier: LinkEventWaiter] = [:]
    }

    /// A host on `transport`; nothing is sent until `start()`. `clock` times the command, connect, scan
    /// and pairing timeouts (tests pass a manual one).
    public init(
        transport: any HCITransport,
        configuration: HCIHostConfiguration = HCIHostConfiguration(),
        clock: any TimeSource = SystemClock()
    ) {
        self.transport = transport
        self.configuration = configuration
        self.clock = clock
        commandDeadline = LazyDeadline(clock: clock)
    }

    /// What initialisation learnt about the controller (nil before `start()` completes).
    public var controller: HCIControllerInfo? { state.withLock { $0.controller } }

    /// Why the transport stopped, once it has.
    public var closeReason: TransportError? { state.withLock { $0.closed } }

    /// Counters of what the receive path dropped or answered.
    public var statistics: HCIHostStatistics { state.withLock { $0.statistics } }

    /// The open connections.
    public var connections: [HCIConnection] { state.withLock { Array($0.connections.values) } }

    /// Starts delivery from the transport and initialises the controller.
    @discardableResult
    public func start() async throws(HCIHostError) -> HCIControllerInfo {
        let already = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        if !already {
            do throws(TransportError) {
                try transport.start(
                    receive: { [weak self] type, packet in self?.receive(type, packet) },
                    closed: { [weak self] reason in self?.transportClosed(reason) }
                )
            } catch {
                throw .transport(error)
            }
        }
        return try await initialize()
    }

    /// Disconnects every link (bounded by the command timeout each) and closes the transport.
    public func shutdown() async {
        for connection in connections { try? await connection.disconnect() }
        transport.close()
    }

    func diagnose(_ line: @autoclosure () -> String) { configuration.diagnostics?(line()) }

    /// Called once when the transport stops: every wait ends with `notRunning`, every link with
    /// `.disconnected`/`.closed` as the transport reports.
    func transportClosed(_ reason: TransportError) {
        let (command, connect, scan, links, waiters) = state.withLock { state in
            state.closed = reason
            defer {
                state.pendingCommand = nil
                state.pendingConnect = nil
                state.scan = nil
                state.connections = [:]
                state.flow.reset()
                state.linkEventWaiters = [:]
            }
            return (
                state.pendingCommand, state.pendingConnect, state.scan, Array(state.connections.values),
                Array(state.linkEventWaiters.values)
            )
        }
        for waiter in waiters { waiter.finish() }
        command?.continuation.resume(returning: .failure(.notRunning(reason)))
        connect?.continuation.resume(returning: .failure(.notRunning(reason)))
        scan?.value.finish()
        for link in links { link.didDisconnect(.closedTransport(reason)) }
    }
}

/// Counters kept by the receive path (read with `HCIHost.statistics`).
public struct HCIHostStatistics: Sendable, Hashable {
    /// Events that could not be decoded or were not expected.
    public var ignoredEvents = 0
    /// ACL packets for unknown handles, continuations without a start, or malformed L2CAP frames.
    public var droppedACL = 0
    /// L2CAP PDUs on channels other than ATT and LE signaling.
    public var droppedL2CAP = 0
    /// Signaling commands answered with Command Reject.
    public var rejectedSignaling = 0
    /// Signaling requests left unanswered because `HCIACLFlow.signalingAnswerLimit` answers were
    /// already waiting for ACL credits (a peer flooding requests faster than its link carries answers).
    public var unansweredSignaling = 0
    /// Link events (`HCIConnection.events`) dropped because nobody read them and the bound was reached.
    public var droppedLinkEvents = 0
    /// Commands owed to a peer's or the controller's parameter requests that a newer request superseded
    /// before they were sent (only the newest is sent, see `HCIConnection`).
    public var supersededCommands = 0
    /// ACL packets sent and received.
    public var aclSent = 0
    /// ACL packets received from the controller.
    public var aclReceived = 0
}
