public import Coordination
import Synchronization

/// Decides when a write without response may go out. ATT has no flow control for Write Command
/// (the only backpressure is the socket's send buffer), so a device layer that knows its peer's limits
/// drives one of these: a byte budget, explicit credits, or a flow-control characteristic such as the
/// Laird VSP ModemOut.
public protocol GATTWritePacing: AnyObject, Sendable {
    /// Waits until a write of `byteCount` value bytes may be sent, and accounts for it.
    func reserve(_ byteCount: Int) async throws(GATTError)
    /// Fails current and later reservations with `reason` (the client calls this when its bearer closes).
    func close(_ reason: GATTError)
}

/// Shared waiting logic: a gate that reservations pass when `admit` says so.
final class PacingGate: Sendable {
    struct State {
        var closed: GATTError?
        var nextID: UInt64 = 0
        var waiters: [(id: UInt64, bytes: Int, continuation: CheckedContinuation<GATTError?, Never>)] = []
    }
    let state = Mutex(State())

    /// Writes waiting at the gate.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Waits until `admit(bytes)` returns true under the lock (it also takes what it admits). Cancelling
    /// the calling task ends the wait with `.cancelled`, taking nothing.
    func wait(_ bytes: Int, admit: @Sendable (Int) -> Bool) async throws(GATTError) {
        let id = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        let failure: GATTError? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate: GATTError?? = state.withLock { state in
                    if let closed = state.closed { return .some(closed) }
                    if Task.isCancelled { return .some(.cancelled) }
                    if state.waiters.isEmpty && admit(bytes) { return .some(nil) }
                    state.waiters.append((id, bytes, continuation))
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            cancelled?.resume(returning: .cancelled)
        }
        if let failure { throw failure }
    }

    /// Re-checks waiters in order after the budget grew.
    func release(admit: @Sendable (Int) -> Bool) {
        let ready = state.withLock { state in
            var ready: [CheckedContinuation<GATTError?, Never>] = []
            while let first = state.waiters.first, admit(first.bytes) {
                ready.append(first.continuation)
                state.waiters.removeFirst()
            }
            return ready
        }
        for continuation in ready { continuation.resume(returning: nil) }
    }

    func close(_ reason: GATTError) {
        let waiters = state.withLock { state in
            state.closed = state.closed ?? reason
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for continuation in waiters { continuation.resume(returning: reason) }
    }
}

/// Credits: each write takes one; the device layer grants more (for example when the peer reports
/// free buffer space).
public final class GATTCreditPacing: GATTWritePacing {
    private let credits: Mutex<Int>
    private let gate = PacingGate()

    /// Starts with `credits` writes allowed.
    public init(credits: Int) { self.credits = Mutex(credits) }

    /// Writes waiting for a credit (for tests that check one is held back).
    package var waitingCount: Int { gate.waitingCount }

    /// Credits not yet spent.
    public var available: Int { credits.withLock { $0 } }

    /// Adds `count` credits and lets waiting writes through, oldest first, one credit each.
    public func grant(_ count: Int) {
        credits.withLock { $0 += count }
        gate.release { [self] _ in takeCredit() }
    }

    /// Takes one credit, waiting in line for one when none is left; `byteCount` does not matter.
    /// - Throws: the close reason once `close(_:)` was called, or `.cancelled` when the waiting task is
    ///   cancelled (no credit is then taken).
    public func reserve(_ byteCount: Int) async throws(GATTError) {
        try await gate.wait(byteCount) { [self] _ in takeCredit() }
    }

    /// Fails the waiting reservations and every later one with `reason`; later grants do not reopen it.
    public func close(_ reason: GATTError) { gate.close(reason) }

    private func takeCredit() -> Bool {
        credits.withLock { credits in
            guard credits > 0 else { return false }
            credits -= 1
            return true
        }
    }
}

/// A flow-control line: writes pass while the peer says it can take data (Laird VSP ModemOut: value
/// bit 0 set = clear to send) and wait while it does not.
public final class GATTFlowControlPacing: GATTWritePacing {
    private let open: Mutex<Bool>
    private let gate = PacingGate()

    /// Starts with the line open (the default) or closed.
    public init(clearToSend: Bool = true) { open = Mutex(clearToSend) }

    /// Writes waiting for the line to open (for tests that check one is held back).
    package var waitingCount: Int { gate.waitingCount }

    /// Whether writes may go out now.
    public var isClearToSend: Bool { open.withLock { $0 } }

    /// Opens or closes the line.
    public func setClearToSend(_ value: Bool) {
        open.withLock { $0 = value }
        if value { gate.release { [self] _ in isClearToSend } }
    }

    /// Updates the line from a flow-control characteristic's value: bit 0 of the first byte.
    public func update(fromFlowControlValue value: UnsafeRawBufferPointer) {
        setClearToSend(value.first.map { $0 & 0x01 != 0 } ?? false)
    }

    /// Returns at once while the line is open, otherwise waits in line until it opens; every waiting
    /// write passes when it does. `byteCount` does not matter.
    /// - Throws: the close reason once `close(_:)` was called, or `.cancelled` when the waiting task is
    ///   cancelled.
    public func reserve(_ byteCount: Int) async throws(GATTError) {
        try await gate.wait(byteCount) { [self] _ in isClearToSend }
    }

    /// Fails the waiting reservations and every later one with `reason`; opening the line does not undo it.
    public func close(_ reason: GATTError) { gate.close(reason) }
}

/// A byte budget: a token bucket of `burst` bytes refilled at `bytesPerSecond`, for a peer whose
/// UART drains at a known rate.
public final class GATTByteBudgetPacing: GATTWritePacing {
    private struct Bucket {
        var tokens: Double
        var last: Duration
    }
    private let bucket: Mutex<Bucket>
    private let closed = Mutex<GATTError?>(nil)
    /// The refill rate of the bucket, in bytes per second.
    public let bytesPerSecond: Int
    /// The bucket's size in bytes: the most that goes out at once after a pause. It starts full.
    public let burst: Int

    private let clock: any TimeSource

    /// Starts with a full bucket. Both values must be positive (a precondition). `clock` times the
    /// refill and the waits.
    public init(bytesPerSecond: Int, burst: Int, clock: any TimeSource = SystemClock()) {
        precondition(bytesPerSecond > 0 && burst > 0, "a byte budget needs a positive rate and burst")
        self.bytesPerSecond = bytesPerSecond
        self.burst = burst
        self.clock = clock
        bucket = Mutex(Bucket(tokens: Double(burst), last: clock.now))
    }

    /// Takes `byteCount` bytes from the bucket (a write larger than `burst` takes a full bucket), sleeping
    /// until it has refilled enough.
    ///
    /// The wait is a sleep: a `close(_:)` is seen when the sleep ends; cancelling the task ends it.
    /// - Throws: the close reason, checked before each attempt; `.cancelled` when the task is cancelled
    ///   while it waits.
    public func reserve(_ byteCount: Int) async throws(GATTError) {
        let cost = Double(min(byteCount, burst))
        while true {
            if let reason = closed.withLock({ $0 }) { throw reason }
            let wait: Double = bucket.withLock { bucket in
                let now = clock.now
                let elapsed = now - bucket.last
                let seconds = elapsed.inSeconds
                bucket.tokens = min(Double(burst), bucket.tokens + seconds * Double(bytesPerSecond))
                bucket.last = now
                if bucket.tokens >= cost {
                    bucket.tokens -= cost
                    return 0
                }
                return (cost - bucket.tokens) / Double(bytesPerSecond)
            }
            if wait == 0 { return }
            do {
                try await clock.sleep(until: clock.now + .nanoseconds(Int64(wait * 1e9) + 1))
            } catch {
                throw .cancelled
            }
        }
    }

    /// Fails later reservations, and waiting ones when their sleep ends, with `reason`; the first reason given
    /// is kept.
    public func close(_ reason: GATTError) { closed.withLock { $0 = $0 ?? reason } }
}
