import BLEHost
import BLETesting
import Coordination
import Foundation
import PicoLink
import PicoSimulator

/// A `SimulatedPicoPeripheral` and a `PicoSession` joined by a socketpair, as a host and a real Pico are.
struct SimulatedPicoSession {
    let peripheral: SimulatedPicoPeripheral
    let hostEnd: SocketPairATTTransport
    let deviceEnd: SocketPairATTTransport
    let session: PicoSession

    static func make(
        configuration: SimulatedPicoConfiguration = .fast,
        mtu: Int = 247,
        name: String = "sim",
        headroom: Int = VSPWriter.defaultHeadroom,
        clock: any TimeSource = SystemClock()
    ) async throws -> SimulatedPicoSession {
        let (hostEnd, deviceEnd) = try SocketPairATTTransport.makePair()
        let peripheral = SimulatedPicoPeripheral(transport: deviceEnd, configuration: configuration)
        try peripheral.start()
        let client = try await GATTClient.connect(transport: hostEnd, mtu: mtu)
        let session = try await PicoSession.open(client: client, name: name, headroom: headroom, clock: clock)
        return SimulatedPicoSession(peripheral: peripheral, hostEnd: hostEnd, deviceEnd: deviceEnd, session: session)
    }

    func close() {
        session.close()
        peripheral.close()
    }
}

/// What a run produced.
struct RunOutcome {
    var events: [PicoEvent] = []
    var failure: (any Error)?

    var packages: [PicoPackage] {
        events.compactMap {
            if case .package(let package) = $0 { return package }
            return nil
        }
    }

    var deviceErrors: [PicoDeviceError] {
        events.compactMap {
            if case .deviceError(let error) = $0 { return error }
            return nil
        }
    }

    var ended: (aborted: Bool, packages: Int)? {
        for event in events {
            if case .ended(let aborted, let packages) = event { return (aborted, packages) }
        }
        return nil
    }

    static func collect(_ run: PicoRun, onPackage: (Int) async -> Void = { _ in }) async -> RunOutcome {
        var outcome = RunOutcome()
        do {
            for try await event in run.events {
                outcome.events.append(event)
                if case .package = event { await onPackage(outcome.packages.count) }
            }
        } catch {
            outcome.failure = error
        }
        return outcome
    }
}

enum ExampleScripts {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .ascii)
    }
}
