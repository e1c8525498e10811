import Synchronization
import Testing

@testable import PicoSimulator

/// A real-time clock that always wakes up `lag` seconds after the deadline it was given.
final class LaggingClock: SimulatorClock {
    let time = Mutex(0.0)
    let lag: Double

    init(lag: Double) { self.lag = lag }

    var isRealTime: Bool { true }
    func now() -> Double { time.withLock { $0 } }
    func sleep(until deadline: Double, cancelled: () -> Bool) {
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
