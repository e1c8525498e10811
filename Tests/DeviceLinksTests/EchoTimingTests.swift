import DeviceLinks
import DeviceRuns
import Testing

/// `EchoTiming`, what `hcipico rtt` measures: round trips on sim:hm10 (its UART looped back), and the
/// typed reasons it measures nothing.
@Suite struct EchoTimingTests {
    private static func hm10() async throws -> DeviceLink {
        try await LinkOpener(logger: RecordedLog().logger()).open(.simulator(.hm10))
    }

    @Test func roundTripsOnALoopedBackUARTAreTimed() async throws {
        let link = try await Self.hm10()
        let timing = EchoTiming(size: 12, count: 30, warmup: 3, echoTimeout: .seconds(30))
        let report = try await timing.measure(on: link, connect: .milliseconds(2))
        await link.close()
        #expect(report.result.count == 30 && report.size == 12 && report.device == "sim:hm10")
        #expect(report.result.minimum <= report.result.median && report.result.median <= report.result.maximum)
        #expect(report.cpuNanoseconds > 0 && !report.threads.isEmpty)
        #expect(report.text.contains("30 × 12 bytes") && report.json.contains("\"n\":30"))
    }

    /// A payload larger than the link's ATT_MTU − 3 is refused before anything is written.
    @Test func aPayloadTheLinkCannotCarryIsRefused() async throws {
        let link = try await Self.hm10()
        let timing = EchoTiming(size: 400, count: 3, warmup: 0, echoTimeout: .seconds(30))
        do {
            _ = try await timing.measure(on: link, connect: .zero)
            Issue.record("a 400-byte payload was timed on a \(link.client.mtu)-byte MTU")
        } catch {
            guard case .gatt(.invalidArgument) = error else {
                Issue.record("\(error)")
                return
            }
        }
        await link.close()
    }
}
