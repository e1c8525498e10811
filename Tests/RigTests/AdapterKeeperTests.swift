import Coordination
import Logging
import RigCore
import Synchronization
import Testing

/// The kernel's adapters as a test sets them; records what the keeper asked for and can refuse it.
final class FakeAdapters: AdapterControl {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "Operation not permitted" }
    }

    private let state = Mutex<(adapters: [AdapterStatus], calls: [String], refuse: Bool)>(([], [], false))

    var calls: [String] { state.withLock { $0.calls } }

    func set(_ adapters: [AdapterStatus]) { state.withLock { $0.adapters = adapters } }
    func refuse(_ refuse: Bool) { state.withLock { $0.refuse = refuse } }

    func adapters() throws -> [AdapterStatus] { state.withLock { $0.adapters } }

    func bringUp(_ name: String) throws {
        try state.withLock { state throws in
            state.calls.append("up \(name)")
            if state.refuse { throw Refused() }
            for index in state.adapters.indices where state.adapters[index].name == name {
                state.adapters[index].isUp = true
            }
        }
    }

    func reset(_ name: String) throws {
        try state.withLock { state throws in
            state.calls.append("reset \(name)")
            if state.refuse { throw Refused() }
        }
    }
}

@Suite struct AdapterKeeperTests {
    static let address = "00:1A:7D:DA:71:13"

    static func keeper(_ adapters: FakeAdapters, _ clock: ManualClock) -> AdapterKeeper {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return AdapterKeeper(control: adapters, clock: clock, logger: logger)
    }

    @Test func aDownAdapterIsBroughtUpAndFailedTriesBackOff() throws {
        let clock = ManualClock()
        let start = clock.wallTime
        let adapters = FakeAdapters()
        adapters.set([AdapterStatus(name: "hci0", address: Self.address, isUp: true)])
        let keeper = Self.keeper(adapters, clock)
        keeper.watch("hci0")
        keeper.check()
        #expect(keeper.reports.first?.state == .up && keeper.reports.first?.address == Self.address)
        #expect(adapters.calls.isEmpty)

        adapters.set([AdapterStatus(name: "hci0", address: Self.address, isUp: false)])
        adapters.refuse(true)
        keeper.check()
        #expect(adapters.calls == ["up hci0"])
        #expect(keeper.reports.first?.state == .down && keeper.reports.first?.bringUpFailures == 1)
        // Cooldown 5 s after the first failure, then 10 s.
        clock.advance(toWallTime: start + 4)
        keeper.check()
        #expect(adapters.calls.count == 1)
        clock.advance(toWallTime: start + 5)
        keeper.check()
        #expect(adapters.calls.count == 2)
        clock.advance(toWallTime: start + 14)
        keeper.check()
        #expect(adapters.calls.count == 2)
        adapters.refuse(false)
        clock.advance(toWallTime: start + 15)
        keeper.check()
        #expect(adapters.calls == ["up hci0", "up hci0", "up hci0"])
        keeper.check()
        let report = try #require(keeper.reports.first)
        #expect(report.state == .up && report.downs == 1 && report.bringUps == 1 && report.bringUpFailures == 2)
    }

    @Test func anAdapterThatComesBackUnderAnotherNameIsFollowedByItsAddress() throws {
        let clock = ManualClock()
        let adapters = FakeAdapters()
        adapters.set([AdapterStatus(name: "hci0", address: Self.address, isUp: true)])
        let keeper = Self.keeper(adapters, clock)
        keeper.watch(nil)
        #expect(keeper.currentName(nil) == nil)
        keeper.check()
        #expect(keeper.currentName(nil) == "hci0")

        adapters.set([])
        keeper.check()
        #expect(keeper.reports.first?.state == .missing && keeper.reports.first?.disappearances == 1)
        #expect(adapters.calls.isEmpty)

        // Another adapter took index 0 meanwhile; ours is back as hci1.
        adapters.set([
            AdapterStatus(name: "hci0", address: "00:00:00:00:00:01", isUp: true),
            AdapterStatus(name: "hci1", address: Self.address, isUp: true),
        ])
        keeper.check()
        let report = try #require(keeper.reports.first)
        #expect(report.state == .up && report.renames == 1 && report.name == "hci1")
        #expect(keeper.currentName(nil) == "hci1")
    }

    @Test func connectsThatKeepFailingWithNoLinkOpenResetTheAdapterWithGrowingCooldown() throws {
        let clock = ManualClock()
        let start = clock.wallTime
        let adapters = FakeAdapters()
        adapters.set([AdapterStatus(name: "hci0", address: Self.address, isUp: true)])
        let keeper = Self.keeper(adapters, clock)
        keeper.watch("hci0")
        keeper.check()

        // Two devices: one keeps its link, the other fails: no reset while a link is open.
        keeper.linkOpened("hci0")
        for _ in 0..<5 { keeper.connectFailed("hci0") }
        keeper.check()
        #expect(adapters.calls.isEmpty)

        // The link drops too; failures from both devices count together.
        keeper.linkClosed("hci0")
        keeper.check()
        #expect(adapters.calls == ["reset hci0"])
        #expect(keeper.reports.first?.resets == 1 && keeper.reports.first?.failedConnects == 0)

        // Failing on: the next reset waits 60 s, the one after 120 s.
        for _ in 0..<3 { keeper.connectFailed("hci0") }
        clock.advance(toWallTime: start + 59)
        keeper.check()
        #expect(adapters.calls.count == 1)
        clock.advance(toWallTime: start + 60)
        keeper.check()
        #expect(adapters.calls.count == 2)
        for _ in 0..<3 { keeper.connectFailed("hci0") }
        clock.advance(toWallTime: start + 179)
        keeper.check()
        #expect(adapters.calls.count == 2)
        clock.advance(toWallTime: start + 180)
        keeper.check()
        #expect(adapters.calls.count == 3)

        // A link that opens again resets the cooldown to its first step.
        keeper.linkOpened("hci0")
        keeper.linkClosed("hci0")
        for _ in 0..<3 { keeper.connectFailed("hci0") }
        clock.advance(toWallTime: start + 180 + 240)
        keeper.check()
        #expect(adapters.calls.count == 4)
        for _ in 0..<3 { keeper.connectFailed("hci0") }
        clock.advance(toWallTime: start + 180 + 240 + 60)
        keeper.check()
        #expect(adapters.calls.count == 5)
    }

    @Test func nothingWatchedListsNothing() {
        final class Counting: AdapterControl {
            let listings = Atomic(0)
            func adapters() throws -> [AdapterStatus] {
                listings.add(1, ordering: .relaxed)
                return []
            }
            func bringUp(_ name: String) throws {}
            func reset(_ name: String) throws {}
        }
        let control = Counting()
        let keeper = AdapterKeeper(control: control, clock: ManualClock(), logger: Logger(label: "test"))
        keeper.check()
        #expect(control.listings.load(ordering: .relaxed) == 0)
    }
}
