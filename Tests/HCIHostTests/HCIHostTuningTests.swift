import BLEHost
import BLETesting
import BLEWire
import Testing

/// Link tuning on our own host against `FakeHCIController`: the exact commands, the values read back from
/// the events, and every refusal, skip and silence reported.
@Suite struct HCIHostTuningTests {
    static let tuningCommands: [any HCICommandPacket.Type] =
        FakeHCIController.baseCommands + [
            HCILEReadBufferSizeV2.self, HCILEReadRemoteFeatures.self, HCILEConnectionUpdate.self,
            HCILESetDataLength.self, HCILESetPHY.self,
        ]

    static func options(_ change: (inout FakeTuning) -> Void = { _ in }) -> FakeHCIController.Options {
        var options = FakeHCIController.Options()
        options.commands = tuningCommands
        options.tuning.localFeatures = LinkTuner.dataLengthExtensionBit | LinkTuner.twoMegabitPHYBit
        change(&options.tuning)
        return options
    }

    /// For steps whose events do come: the waits end at the event, and the whole suite in parallel on
    /// two cores can hold a task back for seconds, longer than the tuner's default timeouts.
    static var patient: LinkTuner {
        var tuner = LinkTuner()
        tuner.eventTimeout = .seconds(30)
        tuner.connectionUpdateTimeout = .seconds(30)
        return tuner
    }

    static var quick: LinkTuner {
        var tuner = LinkTuner()
        tuner.eventTimeout = .milliseconds(200)
        tuner.connectionUpdateTimeout = .milliseconds(200)
        return tuner
    }

    @Test func everyStepIsDoneWithTheValuesFromTheEvents() async throws {
        let harness = try await HostHarness(Self.options())
        let link = try await harness.connect()
        let report = await Self.patient.apply(.lowLatency, to: link)
        #expect(report.localFeatures == .done(0x120))
        #expect(report.remoteFeatures == .done(0x1FF))
        // The fake echoes interval max; the Complete for handle+1 that came first was not taken.
        #expect(report.connection == .done(LinkConnectionState(interval: 12, latency: 0, supervisionTimeout: 200)))
        #expect(
            report.dataLength
                == .done(LinkDataLengthState(maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 251, maxRxTime: 2120))
        )
        #expect(report.phy == .done(LinkPHYState(tx: 2, rx: 2)))
        // The exact parameters on the wire, in HCI units, little endian.
        #expect(harness.controller.commands(0x2016) == [[0x40, 0x00]])
        #expect(harness.controller.commands(0x2013) == [[0x40, 0x00, 6, 0, 12, 0, 0, 0, 200, 0, 0, 0, 0, 0]])
        #expect(harness.controller.commands(0x2022) == [[0x40, 0x00, 251, 0, 0x48, 0x08]])
        #expect(harness.controller.commands(0x2032) == [[0x40, 0x00, 0, 2, 2, 0, 0]])
        // What the host knows afterwards (for --stats).
        let known = link.linkState
        #expect(known.connection.interval == 12 && known.connection.supervisionTimeout == 200)
        #expect(known.dataLength?.maxTxOctets == 251)
        #expect(known.phy == LinkPHYState(tx: 2, rx: 2))
        await harness.host.shutdown()
    }

    @Test func refusalsNameTheStatus() async throws {
        let harness = try await HostHarness(
            Self.options {
                $0.updateStatus = .unacceptableConnectionParameters
                $0.dataLengthStatus = .unknownHCICommand
                $0.phyEventStatus = .unsupportedRemoteFeature
            }
        )
        let link = try await harness.connect()
        let report = await Self.quick.apply(.powerSave, to: link)
        #expect(report.connection == .refused(opcode: 0x2013, status: .unacceptableConnectionParameters))
        #expect(report.dataLength == .refused(opcode: 0x2022, status: .unknownHCICommand))
        #expect(report.phy == .refused(opcode: 0x2032, status: .unsupportedRemoteFeature))
        let lines = report.lines
        #expect(lines[2].contains("refused: Unacceptable Connection Parameters (0x3B)"), "\(lines[2])")
        #expect(lines[3].contains("refused: Unknown HCI Command (0x01)"), "\(lines[3])")
        #expect(lines[4].contains("refused: Unsupported Remote Feature (0x1A)"), "\(lines[4])")
        // A refused update leaves the parameters of Connection Complete in force.
        #expect(link.linkState.connection.interval == 6)
        #expect(link.linkState.phy == nil)
        await harness.host.shutdown()
    }

    @Test func aRefusedCommandStatusEndsTheStepWithoutWaiting() async throws {
        let harness = try await HostHarness(Self.options { $0.phyCommandStatus = .commandDisallowed })
        let link = try await harness.connect()
        let report = await Self.patient.apply(.lowLatency, to: link)
        #expect(report.phy == .refused(opcode: 0x2032, status: .commandDisallowed))
        await harness.host.shutdown()
    }

    @Test func missingFeaturesAndCommandsAreSkippedWithTheReason() async throws {
        var options = Self.options { $0.remoteFeatures = LinkTuner.dataLengthExtensionBit }
        let peerWithout2M = try await HostHarness(options)
        var report = await Self.patient.apply(.lowLatency, to: try await peerWithout2M.connect())
        #expect(report.phy == .notSupported("the peer lacks LE 2M PHY (remote LE feature bit 8)"))
        await peerWithout2M.host.shutdown()

        options.tuning.localFeatures = 0
        let bare = try await HostHarness(options)
        report = await Self.patient.apply(.lowLatency, to: try await bare.connect())
        #expect(
            report.dataLength
                == .notSupported("our controller lacks LE Data Packet Length Extension (LE feature bit 5)")
        )
        #expect(report.phy == .notSupported("our controller lacks LE 2M PHY (LE feature bit 8)"))
        #expect(!bare.controller.commandOpcodes.contains(0x2022) && !bare.controller.commandOpcodes.contains(0x2032))
        await bare.host.shutdown()

        options.commands = FakeHCIController.baseCommands + [HCILEReadBufferSizeV2.self]
        let old = try await HostHarness(options)
        report = await Self.patient.apply(.lowLatency, to: try await old.connect())
        #expect(
            report.remoteFeatures
                == .notSupported("our controller does not list LE Read Remote Features among its supported commands")
        )
        #expect(report.phy == .notSupported("our controller does not list LE Set PHY among its supported commands"))
        await old.host.shutdown()
    }

    @Test func silenceIsReportedNotHidden() async throws {
        var options = Self.options { $0.sendsDataLengthChange = false }
        options.silent = [HCILESetPHY.opcode]
        let harness = try await HostHarness(options, timeout: .milliseconds(300))
        let link = try await harness.connect()
        let report = await Self.quick.apply(.lowLatency, to: link)
        #expect(report.dataLength == .acceptedWithoutEvent(waited: .milliseconds(200)))
        #expect(
            report.phy == .failed(LinkTuningFailure.noAnswer(opcode: 0x2032, waited: .milliseconds(300)).description)
        )
        #expect(report.lines[4].contains("no Command Status or Command Complete for HCI command 0x2032"))
        await harness.host.shutdown()
    }

    @Test func aLinkThatIsDownIsReported() async throws {
        let harness = try await HostHarness(Self.options())
        let link = try await harness.connect()
        try await link.disconnect()
        let report = await Self.quick.apply(.lowLatency, to: link)
        guard case .failed(let why) = report.connection else {
            Issue.record("\(report.connection)")
            return
        }
        #expect(why.contains("the link is down"))
        await harness.host.shutdown()
    }
}
