import Coordination
import Synchronization
import Testing

@testable import PicoSimulator

/// A clock that passes by itself (not a `ManualClock`), and whose every block wakes up `lag` after
/// the deadline it was given.
final class LaggingClock: TimeSource {
    let time = Mutex(Duration.zero)
    let lag: Duration

    init(lag: Double) { self.lag = .seconds(lag) }

    var now: Duration { time.withLock { $0 } }
    var wallTime: Double { 0 }
    func wake(at deadline: Duration, _ body: @escaping @Sendable () -> Void) { body() }
    func block(until deadline: Duration, unless cancelled: () -> Bool) {
        time.withLock { $0 = max($0, deadline) + lag }
    }
}

@Suite struct TimingTests {
    static func statuses(interval: String, lag: Double) -> [Int] {
        var configuration = SimulatedPicoConfiguration()
        configuration.clock = LaggingClock(lag: lag)
        let script =
            "e\nvar p\nvar c\ncell_on\nmeas_loop_ca p c 100m \(interval) 1\npck_start\npck_add c\npck_end\n"
            + "endloop\n\n"
        let reply = PicoHarness(configuration: configuration).run(script: script)
        return ReplyCheck(reply: reply).packages.compactMap { $0.first?.status }
    }

    @Test func pointsReachedLateCarryTheTimingErrorBit() {
        // 50 ms late for a 10 ms interval: every point after the first is behind its schedule.
        let late = Self.statuses(interval: "10m", lag: 0.05)
        #expect(late.count == 100)
        #expect(late.first.map { $0 & 1 } == 0)
        #expect(late.dropFirst().allSatisfy { $0 & 1 == 1 })
        // 50 ms late for a 100 ms interval: still on time.
        let onTime = Self.statuses(interval: "100m", lag: 0.05)
        #expect(onTime.count == 10 && onTime.allSatisfy { $0 & 1 == 0 })
    }
}
