import BLEHost
import BLELinux
import BLEWire
import DeviceLinks
import Foundation
import PicoLink
import Testing

/// `LinkOpener`: one way to open a device, on every path, with typed failures and reports through
/// swift-log — nothing printed, no exit status.
@Suite struct LinkOpenerTests {
    @Test func aSimulatedPicoOpensWithItsSessionAndTheSerialNumberItWasGiven() async throws {
        let log = RecordedLog()
        let opener = LinkOpener(logger: log.logger())
        let options = LinkOpener.Options(simulator: SimulatorSettings(fast: true, serialNumber: "SIM-CELL-7"))
        let opened = try await opener.openPico(.simulator(.pico), options: options)
        let link = try #require(opened.link)
        let session = opened.session
        #expect(link.name == "sim:pico")
        #expect(link.client.bearer.mtu == ATTBearer.maximumMTU)
        guard case .simulator(.pico, _) = link.path else {
            Issue.record("path \(link.path)")
            return
        }
        #expect(try await session.serialNumber() == "SIM-CELL-7")
        await link.close()
    }

    /// A simulator's run can always be repeated: a request that gives no noise seed gets one, which
    /// the run's provenance names; a seed given is kept, and a radio has none.
    @Test func aSimulatorRequestAlwaysCarriesANoiseSeed() {
        let logger = RecordedLog().logger()
        let chosen = LinkRequest(target: .simulator(.pico), options: LinkOpener.Options(), logger: logger)
        #expect(chosen.simulatorSeed != nil && chosen.options.simulator.seed == chosen.simulatorSeed)
        let given = LinkRequest(
            target: .simulator(.pico),
            options: LinkOpener.Options(simulator: SimulatorSettings(seed: 42)),
            logger: logger
        )
        #expect(given.simulatorSeed == 42)
        let radio = LinkRequest(
            target: .radio(BluetoothAddress("C0:FF:EE:00:00:01")!, .kernel(adapter: nil)),
            options: LinkOpener.Options(),
            logger: logger
        )
        #expect(radio.simulatorSeed == nil && radio.options.simulator.seed == nil)
    }

    @Test func theMTUOfferedIsTheOneAsked() async throws {
        let link = try await LinkOpener(logger: RecordedLog().logger()).open(
            .simulator(.hm10),
            options: LinkOpener.Options(mtu: 23)
        )
        #expect(link.client.bearer.mtu == 23)
        await link.close()
    }

    /// With `trace`, every write the simulated device receives is reported at notice level (what the
    /// CLI shows as `hcipico: sim: write …`); without it, nothing.
    @Test func aTracedSimulatorReportsTheWritesItReceives() async throws {
        let log = RecordedLog()
        let opener = LinkOpener(logger: log.logger())
        let traced = LinkOpener.Options(simulator: SimulatorSettings(fast: true, trace: true))
        let opened = try await opener.openPico(.simulator(.pico), options: traced)
        _ = try await opened.session.version()
        await opened.close()
        let writes = log.messages(atLeast: .notice).filter { $0.hasPrefix("sim: write 0x") }
        #expect(!writes.isEmpty, "\(log.messages(atLeast: .trace))")
        // The CCCD of the TX characteristic turned on: 0x0100, little-endian.
        #expect(writes.contains { $0.hasSuffix(" 0100") }, "\(writes)")

        let quiet = RecordedLog()
        let other = try await LinkOpener(logger: quiet.logger()).openPico(
            .simulator(.pico),
            options: LinkOpener.Options(simulator: SimulatorSettings(fast: true))
        )
        _ = try await other.session.version()
        await other.close()
        #expect(quiet.messages(atLeast: .notice).isEmpty)
    }

    /// A device whose Exchange MTU Response is cut short fails the open, typed as the GATT client's failure.
    @Test func aMalformedMTUResponseFailsTheOpenWithItsGATTCause() async throws {
        let opener = LinkOpener(logger: RecordedLog().logger())
        let options = LinkOpener.Options(simulator: SimulatorSettings(fast: true, fault: .malformedMTU))
        let error = await openFailure("gatt") { try await opener.open(.simulator(.pico), options: options) }
        #expect(error?.description.hasPrefix("sim:pico: ") == true, "\(String(describing: error))")
    }

    /// The session step fails typed too: an HM-10 is not a Pico.
    @Test func aDeviceWithoutThePicoServiceFailsAsASession() async throws {
        let opener = LinkOpener(logger: RecordedLog().logger())
        _ = await openFailure("session") { try await opener.openPico(.simulator(.calculator)).link! }
    }

    /// A capture file that cannot be written is refused before anything is opened.
    @Test func anUnwritableCaptureIsBadInput() async throws {
        let address = try BluetoothAddress(parsing: "00:11:22:33:44:55", type: .public)
        let options = LinkOpener.Options(btsnoop: "/nonexistent-directory/x.btsnoop")
        let opener = LinkOpener(logger: RecordedLog().logger())
        let error = await openFailure("badInput") {
            try await opener.open(.radio(address, .kernel(adapter: nil)), options: options)
        }
        #expect(error?.description.contains("cannot write the capture") == true, "\(String(describing: error))")
    }

    /// Hosts shared among links cannot carry one link's capture: refused as bad input.
    @Test func sharedHostsRefuseACaptureOfOneLink() async throws {
        let log = RecordedLog()
        let opener = LinkOpener(logger: log.logger(), hosts: SharedHosts(logger: log.logger()))
        let address = try BluetoothAddress(parsing: "00:11:22:33:44:55", type: .public)
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: capture) }
        let transport = try TransportSpec(parsing: "tcp:127.0.0.1:1")
        _ = await openFailure("badInput") {
            try await opener.open(.radio(address, transport), options: LinkOpener.Options(btsnoop: capture.path))
        }
    }

    /// hcipico's own host on a TCP port nobody listens on: the transport's failure, typed, with the
    /// transport named.
    @Test func anOwnHostWhoseTransportCannotOpenFailsAsASystemError() async throws {
        let address = try BluetoothAddress(parsing: "00:11:22:33:44:55", type: .public)
        let transport = try TransportSpec(parsing: "tcp:127.0.0.1:1")
        for hosts in [nil, SharedHosts(logger: RecordedLog().logger())] {
            let opener = LinkOpener(logger: RecordedLog().logger(), hosts: hosts)
            let error = await openFailure("system") { try await opener.open(.radio(address, transport)) }
            #expect(error?.description.contains("127.0.0.1") == true, "\(String(describing: error))")
        }
    }

    /// The failure of `open`, which is expected to fail with a cause of `kind`; nil (and an issue
    /// recorded) when it opened, or failed some other way.
    func openFailure(
        _ kind: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ open: () async throws -> DeviceLink
    ) async -> LinkOpenError? {
        do {
            let link = try await open()
            await link.close()
            Issue.record("opened; expected a \(kind) failure", sourceLocation: sourceLocation)
            return nil
        } catch let error as LinkOpenError {
            #expect(error.cause.kind == kind, "cause \(error.cause): \(error)", sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("not a LinkOpenError: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }
}

extension LinkOpenError.Cause {
    /// The case's name, for the tests' messages.
    var kind: String {
        switch self {
        case .badInput: "badInput"
        case .system: "system"
        case .host: "host"
        case .gatt: "gatt"
        case .session: "session"
        case .securityFailed: "securityFailed"
        case .bondNotKept: "bondNotKept"
        case .simulator: "simulator"
        }
    }
}
