import Coordination
import Foundation
import Testing

@testable import PicoSimulator

@Suite struct CommandTests {
    @Test func versionSerialAndMethodScriptVersion() {
        let harness = PicoHarness()
        #expect(harness.exchange("t\n", terminator: "*\n") == "tespico1209#Nov 22 2026 00:00:00\nR*\n")
        #expect(harness.exchange("v\n") == "v01.09.00\n")
        #expect(harness.exchange("i\n") == "iSIMPICO00001\n")
    }

    @Test func idleAbortAndUnknownCommands() {
        let harness = PicoHarness()
        #expect(harness.exchange("Z\n") == "Z!0006\n")
        #expect(harness.exchange("x\n") == "x!0003\n")
        #expect(harness.exchange("\n\nt\r\n", terminator: "*\n").hasPrefix("tespico"))
        #expect(harness.exchange(String(repeating: "q", count: 200) + "\n") == "q!0008\n")
    }

    @Test(
        arguments: [
            ("var c\nfoo 1\n", "!4001: Line 2, Col 1"),
            ("var p\nmeas_loop_lsv p c -500m 500m 10m 100m\nendloop\n", "!420B: Line 2, Col 17"),
            ("set_e 5x\n", "!4004: Line 1, Col 8"),
            ("var a\nvar a\n", "!4026: Line 2, Col 5"),
            ("cell_on 1\n", "!420A: Line 1, Col 9"),
            ("set_range ba\n", "!4004: Line 1, Col 13"),
            ("var Bad\n", "!402B: Line 1, Col 5"),
            ("set_range x1 1m\n", "!4209: Line 1, Col 11"),
            ("endloop\n", "!400E: Line 1, Col 1"),
            ("pck_add x\n", "!401B: Line 1, Col 1"),
            ("var p\nvar c\ncell_on\nmeas_loop_ca p c 0 1 1\n", "!4018: Line 5, Col 1"),
            (
                "var p\nvar c\ncell_on\nmeas_loop_ca p c 0 1 1\n  meas_loop_ca p c 0 1 1\n  endloop\nendloop\n",
                "!400B: Line 5, Col 3"
            ),
            ("var p\nvar c\nmeas_loop_cv p c 0 1 -1 10m 1 nscans(0)\nendloop\n", "!4204: Line 3, Col 38"),
            ("var p\nmeas_loop_lsv p 5 0 1 10m 1\nendloop\n", "!420D: Line 2, Col 17"),
            ("send_string \"caf\u{E9}\"\n", "!4004: Line 1, Col 17"),
        ]
    )
    func scriptErrorsAreLocated(script: String, error: String) {
        let reply = PicoHarness().run(script: "e\n" + script + "\n")
        #expect(reply == "e\n\(error)\n\n")
    }

    @Test func runtimeErrorStopsWithoutOnFinished() {
        let script = """
            e
            var p
            var c
            send_string "start"
            meas_loop_lsv p c 0 100m 10m 1
            endloop
            on_finished:
            send_string "finished"


            """
        let reply = PicoHarness().run(script: script)
        #expect(reply == "e\nTstart\n!4027: Line 4, Col 1\n\n")
    }

    @Test func plainLoopsTextAndIntegers() {
        let script = """
            e
            var i
            store_var i 0i ja
            loop i < 3i
              pck_start
              pck_add i
              pck_end
              add_var i 1i
            endloop
            on_finished:
            send_string "bye"


            """
        let reply = PicoHarness().run(script: script)
        #expect(reply == "e\nL\nPja8000000i\nPja8000001i\nPja8000002i\n+\nTbye\n\n")
    }

    @Test func abortMidRunStopsPromptlyAndRunsOnFinished() {
        var configuration = SimulatedPicoConfiguration()
        configuration.clock = SystemClock()
        let harness = PicoHarness(configuration: configuration)
        let script = """
            e
            var p
            var c
            cell_on
            meas_loop_ca p c 100m 5m 100
              pck_start
              pck_add p
              pck_add c
              pck_end
            endloop
            on_finished:
            cell_off
            send_string "off"


            """
        harness.pico.receive(Array(script.utf8))
        #expect(harness.wait(timeout: 10) { $0.components(separatedBy: "\nP").count > 10 })
        #expect(harness.pico.isRunningScript)
        let started = Date()
        harness.pico.receive(Array("Z\n".utf8))
        #expect(harness.wait(timeout: 5) { $0.hasSuffix("Toff\n\n") })
        // The script would run for 100 s; ending well before that shows the abort took effect.
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(!harness.pico.isRunningScript)
        let lines = harness.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains("Z"))
        #expect(!lines.contains("*"))
        let packages = lines.filter { $0.hasPrefix("P") }.count
        #expect(packages >= 10 && packages < 20_000, "\(packages) packages")
        // Idle again: a second Z is refused as "no script running".
        #expect(harness.exchange("Z\n") == "Z!0006\n")
    }

    @Test func realTimeHonoursTheScriptIntervals() {
        var configuration = SimulatedPicoConfiguration()
        configuration.clock = SystemClock()
        let harness = PicoHarness(configuration: configuration)
        let started = Date()
        let reply = harness.run(script: "e\nvar p\nvar c\ncell_on\nmeas_loop_ca p c 0 50m 300m\nendloop\n\n")
        let elapsed = Date().timeIntervalSince(started)
        #expect(reply == "e\nM0000\n*\n\n")
        // At least the script's 300 ms (the upper bound only catches a clock running far too slow).
        #expect(elapsed >= 0.3 && elapsed < 30, "took \(elapsed) s")
    }
}
