import Synchronization
import Testing

@testable import PicoSimulator

@Suite struct VSPTests {
    @Test func modemOutHasHysteresisAndOverrunDrops() {
        var buffer = VSPReceiveBuffer(capacity: 100, fullThreshold: 75, resumeThreshold: 25)
        let seventyFour = [UInt8](repeating: 0x41, count: 74)
        seventyFour.withUnsafeBytes { #expect(buffer.write($0) == 74) }
        #expect(buffer.modemOut)
        [UInt8(0x42)].withUnsafeBytes { _ = buffer.write($0) }
        #expect(!buffer.modemOut)
        var sink: [UInt8] = []
        buffer.read(into: &sink, maximum: 49)
        #expect(buffer.count == 26 && !buffer.modemOut)
        buffer.read(into: &sink, maximum: 1)
        #expect(buffer.count == 25 && buffer.modemOut)
        let fifty = [UInt8](repeating: 0x43, count: 100)
        fifty.withUnsafeBytes { #expect(buffer.write($0) == 75) }
        #expect(buffer.droppedByteCount == 25)
        sink.removeAll()
        buffer.read(into: &sink, maximum: 1000)
        #expect(sink.count == 100)
        #expect(
            sink.prefix(24).allSatisfy { $0 == 0x41 } && sink[24] == 0x42
                && sink.dropFirst(25).allSatisfy { $0 == 0x43 }
        )
    }

    @Test func chunkerNeverExceedsThePayloadAndKeepsOrder() {
        var chunker = VSPTransmitChunker(maximumPayload: 20)
        var chunks: [[UInt8]] = []
        let input = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        for length in [1, 7, 19, 20, 21, 45, 300, 587] {
            input.prefix(length).withUnsafeBytes { bytes in chunker.append(bytes) { chunks.append(Array($0)) } }
        }
        chunker.flush { chunks.append(Array($0)) }
        #expect(chunks.allSatisfy { $0.count <= 20 && !$0.isEmpty })
        let expected = [1, 7, 19, 20, 21, 45, 300, 587].flatMap { input.prefix($0) }
        #expect(chunks.flatMap { $0 } == expected)
    }

    @Test func hostThatOverrunsTheDeviceLosesBytesAndSeesModemOutToggle() {
        var configuration = SimulatedPicoConfiguration.fast
        configuration.receiveBufferCapacity = 256
        let harness = PicoHarness(configuration: configuration)
        // One 1000-byte write lands before the UART can drain anything: 744 bytes cannot be stored.
        harness.pico.receive([UInt8](repeating: UInt8(ascii: "#"), count: 1000))
        #expect(harness.pico.droppedByteCount == 744)
        #expect(harness.wait { _ in harness.recorder.modemOutReports.withLock { $0 } == [false, true] })
        #expect(harness.pico.modemOut)
        // The device still answers afterwards (the garbage ended up as one overlong, ignored line).
        let reply = harness.exchange("\nt\n", terminator: "*\n")
        #expect(reply.hasSuffix("tespico1209#Nov 22 2026 00:00:00\nR*\n"))
    }

    @Test func notificationsRespectTheNegotiatedPayload() throws {
        let harness = PicoHarness()
        let script = try ExampleScripts.text("LSV_10k.mscr")
        _ = harness.run(script: script)
        #expect(harness.recorder.notificationSizes.withLock { $0.allSatisfy { $0 <= 20 } })
        harness.pico.setMaximumNotificationPayload(244)
        harness.recorder.notificationSizes.withLock { $0.removeAll() }
        _ = harness.run(script: script)
        let sizes = harness.recorder.notificationSizes.withLock { $0 }
        #expect(sizes.allSatisfy { $0 <= 244 } && sizes.contains { $0 > 20 })
    }
}
