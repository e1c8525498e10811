import Foundation
import PicoLink
import Testing

@testable import hcipico

/// The live view's percentage and time left come from what the script says; where it does not say,
/// there are none.
@Suite struct ScriptExtentTests {
    /// Every example, against the packages the simulated Pico sends for it.
    static let examples: [(String, Int)] = [
        ("CA.mscr", 100), ("CV.mscr", 201), ("CV_nscans.mscr", 603), ("DPV.mscr", 201), ("EIS.mscr", 31),
        ("LSV_10k.mscr", 101), ("SWV.mscr", 201),
    ]

    @Test(arguments: examples)
    func everyExampleSaysHowManyPointsItSends(name: String, points: Int) throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples")
        let script = try PicoScript(try String(contentsOf: examples.appendingPathComponent(name), encoding: .ascii))
        #expect(ScriptExtent.expectedPoints(script.lines) == points)
    }

    @Test func aScriptThatDoesNotSayGetsNoCount() throws {
        let looped = "var p\nvar c\nloop 1 < 3\nmeas_loop_lsv p c -500m 500m 10m 100m\nendloop\nendloop"
        #expect(ScriptExtent.expectedPoints(looped.split(separator: "\n").map(String.init)) == nil)
        let twice = "meas_loop_lsv p c 0 1 10m 1\nendloop\nmeas_loop_lsv p c 0 1 10m 1\nendloop"
        #expect(ScriptExtent.expectedPoints(twice.split(separator: "\n").map(String.init)) == nil)
        #expect(ScriptExtent.expectedPoints(["meas_loop_lsv p c 0 1 0 1", "endloop"]) == nil)
        #expect(ScriptExtent.expectedPoints(["send_string \"hello\""]) == nil)
    }
}
