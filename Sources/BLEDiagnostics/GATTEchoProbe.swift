import BLEHost
import BLEWire
public import Coordination
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Times write → notification round trips against an echo-style peripheral: a Write Command to one
/// characteristic, answered by the same bytes notified on a subscribed one (a serial bridge in
/// loopback, the test peer's echo mode). The echo may come in several notifications, as a bridge
/// forwards its UART in pieces (an HM-10 in values of at most 20 bytes, as its bytes arrive): a round
/// trip ends when the last byte of its echo has arrived, and every piece must be the next part of
/// what was written.
///
/// The round trips run on the transport's reader thread: the echo of one write is checked, timed and
/// answered by the next write inside the notification callback, so the loop has no thread or task hop
/// and allocates nothing per round trip. The waiting task is resumed once, at the end. (Each write is
/// sent under the probe's lock: the transport must deliver on its own reader thread, as every
/// `ATTTransport` here does, never synchronously inside `send`.)
///
/// ```swift
/// let probe = try GATTEchoProbe(client: client, writeHandle: rx.valueHandle, payloadSize: 10, count: 200, warmup: 20)
/// _ = try await client.subscribe(to: tx) { probe.receive($0) }
/// let result = try await probe.run(stallTimeout: .seconds(5))
/// ```
public final class GATTEchoProbe: Sendable {
    /// The client whose link is timed.
    public let client: GATTClient
    /// The characteristic value handle each round trip writes (a Write Command).
    public let writeHandle: UInt16
    /// Bytes per write (4 to ATT_MTU − 3).
    public let payloadSize: Int
    /// Timed round trips, after the warm-up.
    public let count: Int
    /// Round trips run before the timed ones (not in the result), so that the timed ones find the
    /// code paths warm: symbols bound, metadata instantiated, caches filled.
    public let warmup: Int
    private let boundaries: (@Sendable (_ timedRoundTripsBegin: Bool) -> Void)?

    /// What the round trips touch. The outcome's waiters live apart, in `ended`: a continuation is a
    /// resilient type, and in here it would make every lock of the state look up its layout at run time.
    private struct State: ~Copyable {
        var payload: [UInt8]
        var samples: [Int64]
        var sentAt: Int64?
        /// Bytes of the current round trip's echo that have arrived.
        var echoed = 0
        /// Notifications that carried the timed round trips' echoes.
        var notifications = 0
        var completed = 0
        /// The samples (or why the run failed) once it has ended.
        var outcome: Result<[Int64], Failure>?
    }

    private let state: Mutex<State>
    /// The outcome, for the waiting task: given once, by `finish`.
    private let ended = Latch<Result<[Int64], Failure>>()
    /// What the stall timeout is measured on.
    private let clock: any TimeSource

    /// The payload is `payloadSize` bytes (4 to ATT_MTU − 3): the round trip's number as a
    /// little-endian UInt32, then a fixed filler, so that a stale or reordered echo is caught.
    /// `boundaries` is called on the reader thread with true just before the first timed write and
    /// with false just after the last timed echo (to read a CPU clock around exactly those). The stall
    /// timeout is measured on `clock`.
    public init(
        client: GATTClient,
        writeHandle: UInt16,
        payloadSize: Int,
        count: Int,
        warmup: Int = 0,
        boundaries: (@Sendable (_ timedRoundTripsBegin: Bool) -> Void)? = nil,
        clock: any TimeSource = SystemClock()
    ) throws(GATTError) {
        guard payloadSize >= 4, payloadSize <= client.mtu - 3 else {
            throw .invalidArgument("payload of \(payloadSize) bytes: give 4 to ATT_MTU − 3 = \(client.mtu - 3)")
        }
        guard count >= 1, warmup >= 0 else { throw .invalidArgument("at least one round trip, no negative warm-up") }
        self.client = client
        self.writeHandle = writeHandle
        self.payloadSize = payloadSize
        self.count = count
        self.warmup = warmup
        self.boundaries = boundaries
        self.clock = clock
        let payload = (0..<payloadSize).map { UInt8(truncatingIfNeeded: 0x41 + $0 % 26) }
        var samples: [Int64] = []
        samples.reserveCapacity(count)
        state = Mutex(State(payload: payload, samples: samples))
    }

    /// Sends the first write and waits until `count` echoes came back, an echo differs from what was
    /// written, the link closes, or no echo arrives for `stallTimeout`. The samples are sorted for the
    /// result here, in the waiting task, not on the reader thread.
    public func run(stallTimeout: Duration = .seconds(5)) async throws(Failure) -> GATTEchoResult {
        // A run that already ended (the link closed before it began) sends nothing.
        if state.withLock({ $0.outcome == nil }) { sendNext() }
        let samples = await outcome(stallTimeout: stallTimeout)
        let notifications = state.withLock { $0.notifications }
        return GATTEchoResult(nanoseconds: try samples.get(), notifications: notifications)
    }

    /// The outcome, once `finish` gave it. Every `stallTimeout` the round trips must have moved on (the
    /// first look only notes where they are), or the run ends as stalled; a cancelled wait ends it as
    /// cancelled.
    private func outcome(stallTimeout: Duration) async -> Result<[Int64], Failure> {
        var seen = -1
        while true {
            if let outcome = await ended.wait(upTo: stallTimeout, on: clock) { return outcome }
            let now = state.withLock { $0.completed }
            if Task.isCancelled {
                finish(.failure(.gatt(.cancelled)))
            } else if now == seen {
                finish(.failure(.stalled(roundTrip: now + 1, after: stallTimeout)))
            }
            seen = now
        }
    }

    /// Feeds one notification of the echoing characteristic (call it from the subscription callback).
    public func receive(_ value: UnsafeRawBufferPointer) {
        let now = Self.monotonicNanoseconds()
        let verdict = state.withLock { state -> Verdict in
            guard state.outcome == nil, let sentAt = state.sentAt else { return .ignore }
            let offset = state.echoed
            let same = state.payload.withUnsafeBytes { expected in
                !value.isEmpty && offset + value.count <= expected.count
                    && memcmp(expected.baseAddress! + offset, value.baseAddress!, value.count) == 0
            }
            guard same else {
                return .fail(
                    .mismatch(
                        roundTrip: state.completed + 1,
                        offset: offset,
                        length: value.count,
                        expected: state.payload.count
                    )
                )
            }
            if state.completed >= warmup { state.notifications += 1 }
            state.echoed += value.count
            guard state.echoed == state.payload.count else { return .ignore }
            if state.completed >= warmup { state.samples.append(now - sentAt) }
            state.completed += 1
            state.echoed = 0
            state.sentAt = nil
            return state.completed == warmup + count ? .done(state.samples) : .next
        }
        switch verdict {
        case .ignore: break
        case .next: sendNext()
        case .done(let samples):
            boundaries?(false)
            finish(.success(samples))
        case .fail(let error): finish(.failure(error))
        }
    }

    /// Ends the run early (the link closed): the waiting `run` throws `reason`.
    public func fail(_ reason: GATTError) { finish(.failure(.gatt(reason))) }

    private enum Verdict {
        case ignore, next
        case done([Int64])
        case fail(Failure)
    }

    /// Why a run ended early.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The link failed or closed, or a write could not be sent.
        case gatt(GATTError)
        /// No echo of round trip `roundTrip` (counted from 1) arrived within `after`.
        case stalled(roundTrip: Int, after: Duration)
        /// A notification was not the next part of the echo of the last write (`offset` bytes of it had
        /// arrived): not an echo peripheral, or a lost write.
        case mismatch(roundTrip: Int, offset: Int, length: Int, expected: Int)

        /// One line for a log or the command line.
        public var description: String {
            switch self {
            case .gatt(let error): error.description
            case .stalled(let roundTrip, let after): "no echo of round trip \(roundTrip) within \(after)"
            case .mismatch(let roundTrip, 0, let length, let expected):
                "the notification after write \(roundTrip) is not its echo (\(length) bytes, \(expected) written)"
            case .mismatch(let roundTrip, let offset, let length, let expected):
                "the notification after write \(roundTrip) is not the rest of its echo (\(length) bytes after \(offset) of the \(expected) written)"
            }
        }
    }

    /// Numbers the payload for the next round trip, stamps the time and sends it.
    private func sendNext() {
        let failure: GATTError? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            let number = UInt32(truncatingIfNeeded: state.completed)
            for index in 0..<4 { state.payload[index] = UInt8(truncatingIfNeeded: number >> (8 * index)) }
            if state.completed == warmup { boundaries?(true) }
            state.sentAt = Self.monotonicNanoseconds()
            let handle = writeHandle
            return state.payload.withUnsafeBytes { bytes -> GATTError? in
                do throws(GATTError) {
                    try client.sendWriteCommand(bytes, to: handle)
                    return nil
                } catch {
                    return error
                }
            }
        }
        if let failure { finish(.failure(.gatt(failure))) }
    }

    /// `CLOCK_MONOTONIC` in nanoseconds, as `Tests/Peers/c/att_rtt.c` times its round trips.
    private static func monotonicNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private func finish(_ outcome: Result<[Int64], Failure>) {
        let first = state.withLock { state -> Bool in
            guard state.outcome == nil else { return false }
            state.outcome = outcome
            return true
        }
        if first { ended.settle(outcome) }
    }
}
