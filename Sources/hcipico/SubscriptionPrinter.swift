import BLEHost
import Coordination
import Synchronization

#if canImport(Glibc)
import Glibc
import PicoLink
#endif

/// Prints the values of one subscription as they arrive (on the link's reader thread, in order, one
/// flushed line each) and says why the subscription ended: enough values, Ctrl-C, or a lost link.
final class SubscriptionPrinter: Sendable {
    enum Ending: Sendable {
        case counted
        case stopped(StopReason)
        case lost(GATTError)
    }

    private struct State {
        var printed = 0
        var ending: Ending?
        var waiter: CheckedContinuation<Ending, Never>?
    }

    let format: GATTSubscribeCommand.Format
    let limit: Int?
    private let state = Mutex(State())

    init(format: GATTSubscribeCommand.Format, limit: Int?) {
        self.format = format
        self.limit = limit
    }

    /// Prints one value unless the subscription has already ended.
    func received(_ value: UnsafeRawBufferPointer, handle: UInt16) {
        let bytes = Array(value)
        let time = Self.now()
        let line: String
        switch format {
        case .hex: line = "\(Self.iso8601(time)) 0x\(hex4(handle)) \(AttributeValueText.hex(bytes))\n"
        case .text: line = "\(Self.iso8601(time)) 0x\(hex4(handle)) \(AttributeValueText.line(bytes))\n"
        case .jsonl:
            let text = AttributeValueText.utf8(bytes).map { JSONText.quoted($0) } ?? "null"
            let seconds = "\(time.seconds).\(Self.pad(time.microseconds, 6))"
            line =
                "{\"t\":\(seconds),\"handle\":\(handle),\"value_hex\":\"\(AttributeValueText.hex(bytes))\",\"text\":\(text)}\n"
        }
        let done: Bool = state.withLock { state in
            guard state.ending == nil else { return false }
            ValueText.emit(line)
            state.printed += 1
            if let limit, state.printed >= limit { return true }
            return false
        }
        if done { finish(.counted) }
    }

    /// Ends the subscription (the first reason wins).
    func finish(_ ending: Ending) {
        let waiter: CheckedContinuation<Ending, Never>? = state.withLock { state in
            guard state.ending == nil else { return nil }
            state.ending = ending
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: ending)
    }

    /// Waits until the subscription ends.
    func ending() async -> Ending {
        await withCheckedContinuation { continuation in
            let now: Ending? = state.withLock { state in
                if let ending = state.ending { return ending }
                state.waiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    static func now() -> (seconds: Int, microseconds: Int) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (spec.tv_sec, spec.tv_nsec / 1000)
    }

    /// `2026-11-22T07:30:00.123456Z`.
    static func iso8601(_ time: (seconds: Int, microseconds: Int)) -> String {
        var seconds = time_t(time.seconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(parts.tm_year + 1900)-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
            + ".\(pad(time.microseconds, 6))Z"
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
