public import Coordination
import Synchronization

/// Waits for one LE Meta event (a subevent for one connection handle): registered before its command is
/// sent, fed every event packet as it arrives (`offer`, any thread), and awaited with a bound. An event
/// that arrives before `wait` is kept.
public final class LinkEventWaiter: Sendable {
    /// The LE Meta subevent code awaited (for example 0x07, LE Data Length Change).
    public let subevent: UInt8
    /// The connection handle the event must name.
    public let handle: UInt16
    private let state = Mutex(State())

    private struct State {
        var event: [UInt8]?
        var continuation: CheckedContinuation<[UInt8]?, Never>?
        var finished = false
    }

    /// A waiter for `subevent` on connection `handle`. Put it where events are offered before sending the
    /// command that causes the event.
    public init(subevent: UInt8, handle: UInt16) {
        self.subevent = subevent
        self.handle = handle
    }

    /// The connection handle an LE Meta event packet (code, length, subevent, …) is about, for the
    /// subevents link tuning waits on; nil for any other packet.
    public static func handle(ofLEMeta packet: UnsafeRawBufferPointer) -> (subevent: UInt8, handle: UInt16)? {
        guard packet.count >= 3, packet[0] == 0x3E, Int(packet[1]) == packet.count - 2 else { return nil }
        let subevent = packet[2]
        let offset: Int
        switch subevent {
        case 0x03, 0x04, 0x0C: offset = 4  // status first, then the handle
        case 0x07: offset = 3  // Data Length Change: the handle first
        default: return nil
        }
        guard packet.count >= offset + 2 else { return nil }
        return (subevent, (UInt16(packet[offset]) | UInt16(packet[offset + 1]) << 8) & 0x0FFF)
    }

    /// Takes `packet` (a whole event: code, length, parameters) if it is the awaited one; true if taken.
    @discardableResult
    public func offer(_ packet: UnsafeRawBufferPointer) -> Bool {
        guard let about = Self.handle(ofLEMeta: packet), about.subevent == subevent, about.handle == handle else {
            return false
        }
        let bytes = Array(packet)
        let waiting = state.withLock { state -> CheckedContinuation<[UInt8]?, Never>?? in
            guard !state.finished, state.event == nil else { return nil }
            state.event = bytes
            if state.continuation != nil { state.finished = true }
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        guard let waiting else { return false }
        waiting?.resume(returning: bytes)
        return true
    }

    /// The event, waiting up to `timeout` on `clock` for it; nil when it did not come (or `finish()`
    /// ended the wait). The timeout is a wake of the clock; one that comes after the event finds the
    /// waiter finished and does nothing (a waiter serves one wait).
    public func wait(timeout: Duration, clock: any TimeSource = SystemClock()) async -> [UInt8]? {
        clock.wake(at: clock.now + timeout) { [weak self] in self?.finish() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
            let ready = state.withLock { state -> [UInt8]?? in
                if let event = state.event {
                    state.finished = true
                    return .some(event)
                }
                if state.finished { return .some(nil) }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the wait without an event (timeout, link or socket gone). Idempotent.
    public func finish() {
        let waiting = state.withLock { state in
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(returning: nil)
    }
}
