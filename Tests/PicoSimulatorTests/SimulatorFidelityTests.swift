import Coordination
import PicoSimulator
import Testing

/// The simulator behaves as the instrument does where a user would notice: EIS takes the time its
/// frequencies need, two runs differ unless seeded, and potentials outside the range are refused.
@Suite struct SimulatorFidelityTests {
    /// 31 frequencies from 100 kHz to 100 Hz: at least the settling of each and four periods of
    /// 100 Hz, seconds of device time rather than the 0.6 s of old.
    @Test func eisTakesTheTimeOfItsFrequencies() throws {
        let clock = ManualClock(skipsIdleTime: true)
        var configuration = SimulatedPicoConfiguration.fast
        configuration.clock = clock
        let harness = PicoHarness(configuration: configuration)
        _ = harness.run(script: try ExampleScripts.text("EIS.mscr"))
        let elapsed = Double(clock.now.components.seconds) + Double(clock.now.components.attoseconds) * 1e-18
        #expect(elapsed >= 31 * 0.1 + 4.0 / 100, "device time \(elapsed) s")
        #expect(elapsed < 30, "device time \(elapsed) s")
    }

    @Test func withoutASeedTwoRunsDifferAndWithOneTheyRepeat() throws {
        let script = try ExampleScripts.text("LSV_10k.mscr")
        var unseeded = SimulatedPicoConfiguration.fast
        unseeded.noiseSeed = nil
        #expect(
            PicoHarness(configuration: unseeded).run(script: script)
                != PicoHarness(configuration: unseeded).run(script: script)
        )
        var seeded = SimulatedPicoConfiguration.fast
        seeded.noiseSeed = 7
        #expect(
            PicoHarness(configuration: seeded).run(script: script)
                == PicoHarness(configuration: seeded).run(script: script)
        )
    }

    /// A potential outside the range is refused where it is written: at its own column when it is a number
    /// (the checker's parser sees it), at the command when it comes from a variable (seen as the loop runs).
    @Test(arguments: [
        ("set_e 1000000", 4, 7), ("set_e -1800m", 4, 7), ("meas_loop_lsv p c -500m 2500m 10m 100m", 6, 25),
        ("meas_loop_ca p c 5 100m 1", 6, 18), ("meas_loop_ca p c v 100m 1", 6, 1),
    ])
    func aPotentialOutsideTheRangeIsRefusedAsTheFirmwareDoes(line: String, number: Int, column: Int) {
        let script =
            number == 4
            ? "e\nvar c\nvar p\n\(line)\ncell_on\n\n"
            : "e\nvar c\nvar p\nstore_var v 5 ja\ncell_on\n\(line)\n  pck_start\n  pck_end\nendloop\n\n"
        let reply = PicoHarness().run(script: script)
        // The device counts lines from the one after `e`.
        #expect(reply.contains("!4205: Line \(number - 1), Col \(column)"), "\(line): \(reply)")
    }

    @Test func potentialsWithinTheRangeRun() {
        let reply = PicoHarness().run(script: "e\nvar c\nvar p\nset_e -1700m\nset_e 2\ncell_on\n\n")
        #expect(!reply.contains("!"), "\(reply)")
    }
}
