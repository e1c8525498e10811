import Coordination
import Foundation
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

@Suite struct VSPPacingTests {
    /// About 3 kB of script: 60 numbered `send_string` lines.
    static let script: String = {
        var text = "e\n"
        for index in 0..<60 { text += "send_string \"line \(index) of a script long enough to need pacing\"\n" }
        return text + "\n"
    }()

    static func realTimeDevice() -> PicoHarness {
        var configuration = SimulatedPicoConfiguration()
        configuration.clock = SystemClock()
        configuration.receiveBufferCapacity = 256
        configuration.uartBytesPerSecond = 23_040
        return PicoHarness(configuration: configuration)
    }

    @Test func hostHonouringModemOutLosesNothing() {
        let harness = Self.realTimeDevice()
        let bytes = Array(Self.script.utf8)
        var offset = 0
        let deadline = Date().addingTimeInterval(10)
        while offset < bytes.count, Date() < deadline {
            guard harness.pico.modemOut else {
                Thread.sleep(forTimeInterval: 0.0005)
                continue
            }
            let end = min(offset + 20, bytes.count)
            harness.pico.receive(bytes[offset..<end])
            offset = end
        }
        #expect(offset == bytes.count)
        #expect(harness.wait(timeout: 10) { $0.hasSuffix("\n\n") })
        #expect(harness.pico.droppedByteCount == 0)
        let check = ReplyCheck(reply: harness.text)
        #expect(check.problems.isEmpty)
        #expect(check.texts == (0..<60).map { "line \($0) of a script long enough to need pacing" })
        #expect(harness.recorder.modemOutReports.withLock { $0.contains(false) })
    }

    @Test func hostIgnoringModemOutLosesBytes() {
        let harness = Self.realTimeDevice()
        let bytes = Array(Self.script.utf8)
        for start in stride(from: 0, to: bytes.count, by: 20) {
            harness.pico.receive(bytes[start..<min(start + 20, bytes.count)])
        }
        #expect(harness.pico.droppedByteCount > 0)
        #expect(!harness.pico.modemOut || harness.recorder.modemOutReports.withLock { $0.contains(false) })
    }
}
