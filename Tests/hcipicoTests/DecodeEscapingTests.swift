import BLETesting
import Foundation
import RunResults
import Testing

/// `decode` never writes a control byte of its input to the terminal.
@Suite struct DecodeEscapingTests {
    @Test func controlAndNonASCIIBytesAreEscaped() {
        #expect(EscapedText.of(Array("ok \\ done".utf8)) == "ok \\\\ done")
        #expect(
            EscapedText.of([0x1B, 0x5B, 0x32, 0x4A, 0x07, 0x09, 0x0D, 0x0A, 0x00, 0xFF])
                == "\\x1B[2J\\x07\\t\\r\\n\\x00\\xFF"
        )
    }

    @Test func garbageThroughTheBuiltDecodeReachesTheTerminalEscaped() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("garbage-\(UUID()).txt").path
        let garbage: [UInt8] =
            Array("T".utf8) + [0x1B, 0x5D, 0x30, 0x3B, 0x07] + [0x0A] + [0x1B, 0x5B, 0x32, 0x4A, 0x0A]
        try Data(garbage + Array("tea time\n".utf8)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try #require(runProgram(try builtHCIPico(), ["decode", path]))
        let everything = run.stdout + run.stderr
        #expect(!everything.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(everything)")
        #expect(everything.contains("\\x1B"), "\(everything)")
        #expect(run.stderr.contains("no version reply"), "a line starting with t: \(run.stderr)")
    }
}
