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

    @Test func theProgressLineGivesPercentAndTimeLeftOnlyWhenKnown() {
        #expect(
            LiveDisplay.progressText(points: 40, expected: 101, elapsed: 4, final: false)
                == "points 40 of 101 (39 %)  rate 10.0/s  elapsed 4.0 s  left 6.1 s"
        )
        #expect(
            LiveDisplay.progressText(points: 101, expected: 101, elapsed: 10, final: true)
                == "points 101 of 101 (100 %)  rate 10.1/s  elapsed 10.0 s"
        )
        #expect(
            LiveDisplay.progressText(points: 7, expected: nil, elapsed: 1, final: false)
                == "points 7  rate 7.0/s  elapsed 1.0 s"
        )
    }
}
