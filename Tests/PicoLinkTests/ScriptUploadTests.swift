import BLEHost
import BLETesting
import Coordination
import Foundation
import PicoLink
import PicoSimulator
import Testing

@Suite struct ScriptUploadTests {
    /// About 3 kB: 60 numbered `send_string` lines.
    static let longScript: String = (0..<60).map {
        "send_string \"line \($0) of a script long enough to need pacing\"\n"
    }
    .joined()

    /// A real-time device whose 256-byte FIFO drains at 230 400 baud: much slower than the socketpair.
    static func slowDevice() -> SimulatedPicoConfiguration {
        var configuration = SimulatedPicoConfiguration()
        configuration.clock = SystemClock()
        configuration.receiveBufferCapacity = 256
        configuration.uartBytesPerSecond = 23_040
        return configuration
    }

    @Test func pacedUploadToASlowDeviceLosesNothing() async throws {
        // Headroom = capacity − full threshold (256 − 192).
        let link = try await SimulatedPicoSession.make(configuration: Self.slowDevice(), headroom: 64)
        defer { link.close() }
        let outcome = await RunOutcome.collect(try await link.session.run(text: Self.longScript))
        #expect(link.peripheral.pico.droppedByteCount == 0)
        #expect(outcome.deviceErrors.isEmpty)
        let texts = outcome.events.compactMap { if case .text(let text) = $0 { text } else { nil } }
        #expect(texts == (0..<60).map { "line \($0) of a script long enough to need pacing" })
        #expect(link.session.vsp!.writer.barriers > 0)
    }

    @Test func unpacedWriterLosesBytes() async throws {
        let link = try await SimulatedPicoSession.make(configuration: Self.slowDevice())
        defer { link.close() }
        let bytes = try PicoScript(Self.longScript).bytes
        let chunk = link.session.vsp!.client.mtu - 3
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            try bytes[start..<min(start + chunk, bytes.count)].withUnsafeBytes { value in
                try link.session.vsp!.client.sendWriteCommand(value, to: link.session.vsp!.writer.rxHandle)
            }
        }
        #expect(await eventually { link.peripheral.pico.droppedByteCount > 0 })
    }

    @Test func scriptIsFramedWithOneEAndOneEmptyLine() throws {
        #expect(try PicoScript("var c\ncell_on").bytes == Array("e\nvar c\ncell_on\n\n".utf8))
        #expect(try PicoScript("e\nvar c\n\n\n").bytes == Array("e\nvar c\n\n".utf8))
        #expect(
            try PicoScript(try ExampleScripts.text("CV.mscr")).bytes == Array(try ExampleScripts.text("CV.mscr").utf8)
        )
    }

    @Test(arguments: [
        ("var c\r\ncell_on\n", 1, 6, "carriage return"),
        ("var c\ncell_on\rx\n", 2, 8, "carriage return"),
        ("var c\nsend_string \"µ\"\n", 2, 14, "not ASCII"),
        ("var c\n" + String(repeating: "x", count: 129) + "\n", 2, 129, "exceeds 128"),
        ("e\nvar c\n\ncell_on\n", 3, 1, "empty line inside"),
    ])
    func badScriptsAreRefusedWithTheirPlace(_ text: String, _ line: Int, _ column: Int, _ words: String) throws {
        let error = #expect(throws: PicoScriptError.self) { try PicoScript(text) }
        #expect(error?.line == line && error?.column == column)
        #expect(error?.description.contains(words) == true)
    }

    @Test func tooLargeAndEmptyScriptsAreRefused() {
        #expect(throws: PicoScriptError.self) { try PicoScript(String(repeating: "var c\n", count: 3000)) }
        #expect(throws: PicoScriptError.self) { try PicoScript("e\n\n") }
    }

    @Test func refusedScriptSendsNothing() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let before = link.hostEnd.sentCount
        await #expect(throws: PicoSessionError.self) { try await link.session.run(text: "cell_on\r\n") }
        #expect(link.hostEnd.sentCount == before)
        #expect(try await link.session.version().device == "EmStat Pico")
    }
}
