import BLEHost
import BLETesting
import BLEWire
import Testing

/// Link tuning on our host against Bumble's emulated controller (`make peers-h4`; in the
/// `HCIHostPeerTests` suite, so the same filter and gate apply). Whatever the
/// controller answers, each step must end in a reported outcome: Bumble 0.0.236 accepts LE Connection
/// Update and answers it with LE Connection Update Complete, reads the peer's features over its link,
/// but has no handler for LE Set Data Length (Command Complete, Unknown HCI Command) or LE Set PHY
/// (no answer at all). Those answers are checked to be reported as such, and the link to keep working.
extension HCIHostPeerTests {
    @Test("link tuning: every low-latency step reported, the link still works")
    func lowLatencyStepsAreReportedAndTheLinkStillWorks() async throws {
        try await PeerRun.run(["--mode", "pico", "--le-acl-len", "251"], name: "tuning") { run in
            let peripheral = try #require(run.peer.peripherals.first)
            let found = try #require(try await run.scan(for: [peripheral]).first)
            let link = try await VSPLink.open(host: run.host, peer: found.address)
            let report = await LinkTuner().apply(.lowLatency, to: link.connection)
            for line in report.lines { print("BUMBLE \(line)") }
            #expect(report.lines.count == 5)
            #expect(report.localFeatures.value != nil, "\(report.localFeatures)")
            #expect(report.remoteFeatures.value != nil, "\(report.remoteFeatures)")
            let connection = try #require(report.connection.value, "\(report.connection)")
            #expect((6...12).contains(connection.interval) && connection.supervisionTimeout == 200)
            #expect(link.connection.linkState.connection == connection)
            // Refused, unanswered or done: reported with what the controller said, never dropped.
            for (step, outcome) in [("data length", Self.kind(report.dataLength)), ("PHY", Self.kind(report.phy))] {
                #expect(outcome != "not run", "\(step) was not attempted")
            }
            if case .refused(_, let status) = report.dataLength {
                #expect(report.lines[3].contains("\(status)"))
            }
            if case .failed(let why) = report.phy {
                #expect(report.lines[4].contains(why))
            }
            try await picoScenario(link)
        }
    }

    static func kind<Value>(_ outcome: LinkTuningOutcome<Value>) -> String {
        switch outcome {
        case .done: "done"
        case .acceptedWithoutEvent: "accepted"
        case .refused: "refused"
        case .notSupported(let why): why
        case .failed: "failed"
        }
    }
}
