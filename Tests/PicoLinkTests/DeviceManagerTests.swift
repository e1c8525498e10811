import BLEHost
import BLETesting
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
            return try await GATTClient.connect(transport: hostEnd)
        }
    }

    func closeAll() { peripherals.withLock { $0.forEach { $0.close() } } }
}

@Suite struct DeviceManagerTests {
    @Test func threeSimulatedPicosRunAtOnce() async throws {
        let farm = SimulatorFarm()
        defer { farm.closeAll() }
        let manager = DeviceManager()
        let names = ["pico-a", "pico-b", "pico-c"]
        for name in names { _ = try manager.add(name, connector: farm.connector()) }
        #expect(await manager.connectAll().isEmpty)
        let script = try PicoScript(try ExampleScripts.text("LSV_10k.mscr"))
        let outcomes = try await withThrowingTaskGroup(of: (String, Int, Int).self) { group in
            for device in manager.all {
                group.addTask {
                    let run = try await device.run(script, title: "lsv")
                    let outcome = await RunOutcome.collect(run)
                    var streamed = 0
                    for await package in device.packages {
                        #expect(package.device == device.name)
                        streamed += 1
                        if streamed == 101 { break }
                    }
                    return (device.name, outcome.packages.count, streamed)
                }
            }
            var all: [String: (Int, Int)] = [:]
            for try await (name, packages, streamed) in group { all[name] = (packages, streamed) }
            return all
        }
        for name in names {
            #expect(outcomes[name]?.0 == 101 && outcomes[name]?.1 == 101, "\(name)")
        }
        let device = try #require(manager["pico-b"])
        manager.removeAll()
        var statuses: [DeviceStatus] = []
        for await status in device.statuses { statuses.append(status) }
        #expect(statuses.first == .disconnected(reason: nil))
        #expect(statuses.contains(.connecting(attempt: 1)) && statuses.contains(.connected))
        #expect(statuses.contains(.running(run: 1)))
        #expect(Array(statuses.suffix(2)) == [.disconnecting, .disconnected(reason: nil)])
    }

    @Test func lostLinkReconnectsWithBackoff() async throws {
        let farm = SimulatorFarm()
        defer { farm.closeAll() }
        let manager = DeviceManager()
        let policy = ReconnectPolicy(initialDelay: 0.01, maximumDelay: 0.05, jitter: 0, maximumRetries: 5)
        let device = try manager.add("pico", reconnect: policy, connector: farm.connector())
        try await device.connect()
        farm.peripherals.withLock { $0.first?.close() }
        var seen: [DeviceStatus] = []
        for await status in device.statuses {
            seen.append(status)
            if status == .connected, seen.contains(where: { if case .waitingToReconnect = $0 { true } else { false } })
            {
                break
            }
        }
        #expect(seen.contains(.waitingToReconnect(attempt: 1, delay: 0.01)))
        #expect(farm.peripherals.withLock { $0.count } == 2)
        let version = try await #require(device.session).version()
        #expect(version.device == "EmStat Pico")
        manager.removeAll()
    }

    @Test func aLostLinkGetsExactlyTheRetriesThePolicyAllowsWithGrowingDelays() async throws {
        let farm = SimulatorFarm()
        defer { farm.closeAll() }
        let manager = DeviceManager()
        let policy = ReconnectPolicy(initialDelay: 0.01, multiplier: 2, maximumDelay: 1, jitter: 0, maximumRetries: 2)
        let calls = Mutex(0)
        let firstConnect = farm.connector()
        // The first connect reaches a simulated Pico; every reconnect fails.
        let device = try manager.add("pico", reconnect: policy) {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            if call == 1 { return try await firstConnect() }
            throw GATTError.notFound("no Pico in range")
        }
        try await device.connect()
        farm.peripherals.withLock { $0.first?.close() }
        // From the start: … the lost link (a disconnection with a reason), the retries, and the give-up
        // (the second such disconnection). Bounded, so that a device that never gives up fails here.
        var seen: [DeviceStatus] = []
        var disconnections = 0
        for await status in device.statuses {
            seen.append(status)
            if case .disconnected(_?) = status { disconnections += 1 }
            if disconnections == 2 || seen.count > 40 { break }
        }
        #expect(disconnections == 2)
        let waits = seen.compactMap { status -> Double? in
            if case .waitingToReconnect(_, let delay) = status { delay } else { nil }
        }
        #expect(waits == [0.01, 0.02], "retry 1, then retry 2 waits twice as long; then it gives up")
        #expect(calls.withLock { $0 } == 3, "the first connect and two reconnects")
        #expect(seen.contains(.connecting(attempt: 2)) && !seen.contains(.connecting(attempt: 3)))
        manager.removeAll()
    }

    @Test func duplicateNamesAreRefused() throws {
        let manager = DeviceManager()
        _ = try manager.add("x", connector: SimulatorFarm().connector())
        #expect(throws: PicoSessionError.self) { try manager.add("x", connector: SimulatorFarm().connector()) }
    }
}
