import Foundation
import PicoLink
import PicoSimulator
import Synchronization
import Testing

@Suite struct PicoSessionTests {
    struct Expectation: Sendable, CustomStringConvertible {
        var file: String
        var packages: Int
        var codes: [String]
        /// The script's `pck_add` names, in order.
        var names: [String]
        var scans = 0
        var description: String { file }
    }

    static let expectations: [Expectation] = [
        Expectation(file: "CA.mscr", packages: 100, codes: ["eb", "ba"], names: ["t", "c"]),
        Expectation(file: "LSV_10k.mscr", packages: 101, codes: ["da", "ba"], names: ["p", "c"]),
        Expectation(file: "CV.mscr", packages: 201, codes: ["da", "ba"], names: ["p", "c"]),
        Expectation(file: "CV_nscans.mscr", packages: 603, codes: ["da", "ba"], names: ["p", "c"], scans: 3),
        Expectation(file: "SWV.mscr", packages: 201, codes: ["da", "ba", "ba", "ba"], names: ["p", "c", "f", "r"]),
        Expectation(file: "DPV.mscr", packages: 201, codes: ["da", "ba"], names: ["p", "c"]),
        Expectation(file: "EIS.mscr", packages: 31, codes: ["dc", "cc", "cd"], names: ["f", "z_re", "z_im"]),
    ]

    @Test func versionNamesTheEmStatPico() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let version = try await link.session.version()
        #expect(version.firmware.hasPrefix("espico"))
        #expect(version.device == "EmStat Pico")
        #expect(version.lines.last?.hasSuffix("*") == true)
    }

    @Test func serialNumberIsTheDevicesOwn() async throws {
        var configuration = SimulatedPicoConfiguration.fast
        configuration.serialNumber = "ES4SN21000042"
        let link = try await SimulatedPicoSession.make(configuration: configuration)
        defer { link.close() }
        #expect(try await link.session.serialNumber() == "ES4SN21000042")
        // The session is idle again: a version and a run follow.
        #expect(try await link.session.version().device == "EmStat Pico")
    }

    @Test(arguments: expectations)
    func exampleRunsEndToEnd(_ expectation: Expectation) async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let run = try await link.session.run(text: try ExampleScripts.text(expectation.file))
        let outcome = await RunOutcome.collect(run)
        #expect(outcome.failure == nil)
        #expect(outcome.deviceErrors.isEmpty)
        #expect(outcome.events.first == .accepted)
        let packages = outcome.packages
        #expect(packages.count == expectation.packages)
        #expect(outcome.ended?.aborted == false && outcome.ended?.packages == expectation.packages)
        #expect(packages.map(\.index) == Array(0..<packages.count))
        #expect(packages.allSatisfy { $0.values.map(\.code) == expectation.codes })
        #expect(packages.allSatisfy { $0.values.map(\.name) == expectation.names })
        #expect(packages.allSatisfy { $0.device == "sim" && $0.run == 1 })
        let scans = Set(packages.compactMap(\.scan))
        #expect(scans.count == expectation.scans)
        #expect(zip(packages, packages.dropFirst()).allSatisfy { $0.hostTime <= $1.hostTime })
    }

    @Test func lsvOnTenKilohmFollowsOhmsLaw() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let outcome = await RunOutcome.collect(
            try await link.session.run(text: try ExampleScripts.text("LSV_10k.mscr"))
        )
        let packages = outcome.packages
        #expect(packages.count == 101)
        #expect(abs((packages.first?["da"] ?? 0) + 0.5) < 1e-3 && abs((packages.last?["da"] ?? 0) - 0.5) < 1e-3)
        for package in packages {
            let potential = try #require(package["da"])
            let current = try #require(package["ba"])
            guard abs(potential) > 0.02 else { continue }
            #expect(abs(current - potential / 10_000) <= 0.01 * abs(potential / 10_000), "at \(potential) V")
        }
        #expect(
            packages.allSatisfy { $0.values[1].unit == "A" && $0.values[1].status != nil && $0.values[1].range != nil }
        )
    }

    @Test func caCarriesDeviceTime() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let outcome = await RunOutcome.collect(try await link.session.run(text: try ExampleScripts.text("CA.mscr")))
        let times = outcome.packages.compactMap(\.deviceTime)
        #expect(times.count == 100)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func twoRunsInARowAreNumbered() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let script = try ExampleScripts.text("EIS.mscr")
        let first = await RunOutcome.collect(try await link.session.run(text: script))
        let second = await RunOutcome.collect(try await link.session.run(text: script))
        #expect(first.packages.count == 31 && second.packages.count == 31)
        #expect(second.packages.allSatisfy { $0.run == 2 })
    }

    @Test(arguments: [23, 100, 247])
    func notificationsFollowTheNegotiatedMTU(_ mtu: Int) async throws {
        let link = try await SimulatedPicoSession.make(mtu: mtu)
        defer { link.close() }
        let sizes = Mutex<[Int]>([])
        link.deviceEnd.injectFaults { _, pdu in
            if pdu.first == 0x1B { sizes.withLock { $0.append(pdu.count) } }
            return nil
        }
        let outcome = await RunOutcome.collect(try await link.session.run(text: try ExampleScripts.text("CV.mscr")))
        #expect(outcome.packages.count == 201)
        let seen = sizes.withLock { $0 }
        #expect(link.session.vsp!.client.mtu == mtu)
        #expect(seen.allSatisfy { $0 <= mtu })
        #expect(seen.contains { $0 == mtu })
    }
}
