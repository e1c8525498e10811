public import BLEHost
import Synchronization

/// An `ATTClock` that moves only when told: `advance(by:)` moves time and runs every live ticker, so a
/// test can pass the 30 s ATT timeout without waiting.
public final class ManualATTClock: ATTClock, Sendable {
    private let state = Mutex(State())

    private struct State {
        var now: Duration = .zero
        var nextID = 0
        var tickers: [Int: @Sendable () -> Void] = [:]
    }

    public init() {}

    public var now: Duration { state.withLock { $0.now } }

    /// How many tickers are running (bearers started and not yet closed).
    public var activeTickers: Int { state.withLock { $0.tickers.count } }

    public func startTicking(every interval: Duration, _ tick: @escaping @Sendable () -> Void) -> any ATTClockTicker {
        let id = state.withLock { state in
            state.nextID += 1
            state.tickers[state.nextID] = tick
            return state.nextID
        }
        return Ticker(clock: self, id: id)
    }

    /// Moves time forward and ticks every running ticker once.
    public func advance(by duration: Duration) {
        let ticks = state.withLock { state in
            state.now += duration
            return Array(state.tickers.values)
        }
        for tick in ticks { tick() }
    }

    private func remove(_ id: Int) {
        _ = state.withLock { $0.tickers.removeValue(forKey: id) }
    }

    private struct Ticker: ATTClockTicker {
        let clock: ManualATTClock
        let id: Int
        func cancel() { clock.remove(id) }
    }
}
