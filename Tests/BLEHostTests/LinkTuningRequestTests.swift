import BLEHost
import Testing

@Suite struct LinkTuningRequestTests {
    @Test func presetsAreInSpecRange() {
        #expect(LinkTuningRequest.lowLatency.connection.intervalMin == 6)  // 7.5 ms
        #expect(LinkTuningRequest.lowLatency.connection.intervalMax == 12)  // 15 ms
        #expect(LinkTuningRequest.lowLatency.connection.supervisionTimeout == 200)  // 2 s
        #expect(LinkTuningRequest.balanced.connection.intervalMax == 40)
        #expect(LinkTuningRequest.powerSave.connection.latency == 4)
        for preset in LinkTuningRequest.presets {
            #expect(HCIConnectionParameterLimits().accepts(preset.connection), "\(preset)")
            #expect(preset.dataLength == LinkDataLength(octets: 251, time: 2120))
            #expect(preset.preferTwoMegabitPHY)
        }
    }

    @Test func reportLinesNameEveryOutcome() {
        var report = LinkTuningReport(request: .lowLatency)
        report.localFeatures = .done(0x1FF)
        report.remoteFeatures = .refused(opcode: 0x2016, status: .unsupportedRemoteFeature)
        report.connection = .refused(opcode: 0x2013, status: .unacceptableConnectionParameters)
        report.dataLength = .acceptedWithoutEvent(waited: .seconds(3))
        report.phy = .notSupported("the peer's LE features are unknown")
        let lines = report.lines
        #expect(lines.count == 5)
        #expect(lines[0].contains("data length extension yes, 2M PHY yes"))
        #expect(lines[1].contains("refused: Unsupported Remote Feature (0x1A)"))
        #expect(lines[2].hasPrefix("link connection: requested interval 7.5–15 ms, latency 0, timeout 2000 ms"))
        #expect(lines[2].contains("refused: Unacceptable Connection Parameters (0x3B) (HCI command 0x2013)"))
        #expect(lines[3].contains("accepted, but no result event"))
        #expect(lines[4].contains("not supported: the peer's LE features are unknown"))
    }
}
