import BLEHost
import BLETesting
import Coordination
import Foundation
import PicoLink
import PicoSimulator
import Synchronization
import Testing

/// Simulated Picos made on demand by connectors, kept so that tests can cut their links.
final class SimulatorFarm: Sendable {
    let peripherals = Mutex<[SimulatedPicoPeripheral]>([])

    func connector() -> ManagedDevice.Connector {
        { [self] in
            let (hostEnd, deviceEnd) = try SocketPairATTTransport.makePair()
            let peripheral = SimulatedPicoPeripheral(transport: deviceEnd, configuration: .fast)
            try peripheral.start()
            peripherals.withLock { $0.append(peripheral) }
            let client = try await GATTClient.connect(transport: hostEnd)
            return DeviceConnection(client: client, parameters: nil) { client.bearer.close() }
        }
    }

    /// Counts a connector's calls.
    final class Calls: Sendable {
        private let count = Mutex(0)
        var made: Int { count.withLock { $0 } }
        func next() -> Int {
            count.withLock { count in
                count += 1
                return count
            }
        }
    }

    /// A connector whose calls after the first go to `later` (given the call's number, from 2).
    func connector(
        counting calls: Calls,
        later: @escaping @Sendable (Int) async throws -> DeviceConnection
    ) -> ManagedDevice.Connector {
        let first = connector()
        return {
            let call = calls.next()
            return call == 1 ? try await first() : try await later(call)
        }
    }

    func closeAll() { peripherals.withLock { $0.forEach { $0.close() } } }
}

/// `DeviceManager` on `DeviceKeeper`, the rig's reconnecting mechanism: runs on several devices at
/// once, recorded into sinks; a lost link reconnects at once and then backs off on the manager's
/// clock (a manual one here, moved on as each wait is reported); a stop ends a wait at once.
@Suite struct DeviceManagerTests {
    /// Statuses until `done` says enough (bounded, so that a device that never gets there fails),
    /// moving `clock` on by each reported wait.
    static func statuses(
        of device: ManagedDevice,
        clock: ManualClock,
        until done: ([DeviceStatus]) -> Bool
    ) async -> [DeviceStatus] {
        var seen: [DeviceStatus] = []
        for await status in device.statuses {
            seen.append(status)
            if case .waitingToReconnect(_, let delay) = status { clock.advance(by: .seconds(delay)) }
            if done(seen) || seen.count > 40 { break }
        }
        return seen
    }

    @Test func threeSimulatedPicosRunAtOnceRecordedIntoSinks() async throws {
        let farm = SimulatorFarm()
        defer { farm.closeAll() }
        let manager = DeviceManager()
        let names = ["pico-a", "pico-b", "pico-c"]
        for name in names { _ = try manager.add(name, connector: farm.connector()) }
        #expect(await manager.connectAll().isEmpty)
        let script = try PicoScript(try ExampleScripts.text("LSV_10k.mscr"))
        let outcomes = try await withThrowingTaskGroup(of: (String, Int, Int, Bool).self) { group in
            for device in manager.all {
                group.addTask {
                    let sink = KeepingSink()
                    let end = try await device.record(script, title: "lsv", into: [sink])
                    var streamed = 0
                    for await package in device.packages {
                        #expect(package.device == device.name)
                        streamed += 1
                        if streamed == 101 { break }
                    }
                    return (device.name, sink.packages.count, streamed, end.complete && sink.ends == [end])
                }
            }
            var all: [String: (Int, Int, Bool)] = [:]
            for try await (name, recorded, streamed, complete) in group { all[name] = (recorded, streamed, complete) }
            return all
        }
        for name in names {
            #expect(outcomes[name]?.0 == 101 && outcomes[name]?.1 == 101 && outcomes[name]?.2 == true, "\(name)")
        }
        let device = try #require(manager["pico-b"])
        await manager.removeAll()
        var statuses: [DeviceStatus] = []
        for await status in device.statuses { statuses.append(status) }
        #expect(statuses.first == .disconnected(reason: nil))
        #expect(statuses.contains(.connecting(attempt: 1)) && statuses.contains(.connected))
        #expect(statuses.contains(.running(run: 1)))
        #expect(Array(statuses.suffix(2)) == [.disconnecting, .disconnected(reason: nil)])
    }

    @Test func aLostLinkReconnectsAtOnceThenBacksOffOnTheClock() async throws {
        let farm = SimulatorFarm()
        defer { farm.closeAll() }
        let clock = ManualClock()
        let manager = DeviceManager(clock: clock)
        let policy = ReconnectPolicy(initialDelay: 0.01, maximumDelay: 0.05, jitter: 0, maximumRetries: 5)
        let calls = SimulatorFarm.Calls()
        let reconnect = farm.connector()
        // The reconnect at once finds nothing; the retry after the backoff finds a Pico.
        let device = try manager.add(
            "pico",
            reconnect: policy,
            connector: farm.connector(counting: calls) { call in
                if call == 2 { throw GATTError.notFound("no Pico in range") }
                return try await reconnect()
            }
        )
        try await device.connect()
        farm.peripherals.withLock { $0.first?.close() }
        let seen = await Self.statuses(of: device, clock: clock) { $0.last == .connected && $0.count > 3 }
        let afterLoss = Array(seen.drop { if case .disconnected(_?) = $0 { false } else { true } })
        let expected: [DeviceStatus] = [
            .connecting(attempt: 1), .waitingToReconnect(attempt: 2, delay: 0.01),
            .connecting(attempt: 2), .connected,
        ]
        #expect(Array(afterLoss.dropFirst()) == expected, "\(seen)")
        #expect(clock.now == .milliseconds(10), "one backoff, on the manager's clock")
        #expect(calls.made == 3)
        let version = try await #require(device.session).version()
        #expect(version.device == "EmStat Pico")
        await manager.removeAll()
    }

    @Test func aLostLinkGetsExactlyTheRetriesThePolicyAllowsWithGrowingDelays() async throws {
        let farm = SimulatorFarm()
        defer { farm.closeAll() }
        let clock = ManualClock()
        let manager = DeviceManager(clock: clock)
        let policy = ReconnectPolicy(initialDelay: 0.01, multiplier: 2, maximumDelay: 1, jitter: 0, maximumRetries: 2)
        let calls = SimulatorFarm.Calls()
        // The first connect reaches a simulated Pico; every reconnect fails.
        let device = try manager.add(
            "pico",
            reconnect: policy,
            connector: farm.connector(counting: calls) { _ in throw GATTError.notFound("no Pico in range") }
        )
        try await device.connect()
        farm.peripherals.withLock { $0.first?.close() }
        // The lost link (a disconnection with a reason), the attempts, and the give-up (the second).
        let seen = await Self.statuses(of: device, clock: clock) { seen in
            seen.count { if case .disconnected(_?) = $0 { true } else { false } } == 2
        }
        let waits = seen.compactMap { status -> Double? in
            if case .waitingToReconnect(_, let delay) = status { delay } else { nil }
        }
        #expect(waits == [0.01, 0.02], "retry 1, then retry 2 waits twice as long; then it gives up")
        #expect(calls.made == 4, "the first connect, the reconnect at once and two retries")
        #expect(
            seen.contains(DeviceStatus.connecting(attempt: 3)) && !seen.contains(DeviceStatus.connecting(attempt: 4))
        )
        #expect(seen.last == DeviceStatus.disconnected(reason: "\(GATTError.notFound("no Pico in range"))"))
        await manager.removeAll()
    }

    /// A device that cannot be reached waits between attempts; a disconnect ends that wait at once
    /// (the clock never moves), and the caller still waiting to connect hears it was cancelled.
    @Test func aDisconnectEndsTheWaitBetweenAttempts() async throws {
        let clock = ManualClock()
        let manager = DeviceManager(clock: clock)
        let device = try manager.add("pico", reconnect: ReconnectPolicy(initialDelay: 60, maximumDelay: 60)) {
            throw GATTError.notFound("no Pico in range")
        }
        let connecting = Task { () throws(PicoSessionError) in try await device.connect() }
        _ = await Self.statuses(of: device, clock: ManualClock()) {
            if case .waitingToReconnect = $0.last { true } else { false }
        }
        await device.disconnect()
        await #expect(throws: PicoSessionError.cancelled) { try await connecting.value }
        #expect(clock.now == .zero)
        #expect(device.session == nil)
        await manager.removeAll()
    }

    @Test func duplicateNamesAreRefused() throws {
        let manager = DeviceManager()
        _ = try manager.add("x", connector: SimulatorFarm().connector())
        #expect(throws: PicoSessionError.self) { try manager.add("x", connector: SimulatorFarm().connector()) }
    }
}
