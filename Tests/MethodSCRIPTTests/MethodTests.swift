import MethodSCRIPT
import Testing

/// The typed methods of `Specs/methodscript/`: defaults that render a script the checker takes, every bound
/// refused by the parameter's name with its value and bound, rules across parameters, numbers written as
/// MethodSCRIPT writes them.
@Suite struct MethodTests {
    @Test(arguments: Technique.allCases)
    func theDefaultsRenderAScriptTheCheckerAccepts(technique: Technique) throws {
        let method = try Method(technique: technique)
        #expect(method.problems().isEmpty, "\(method.problems())")
        let script = try method.script()
        #expect(script.hasPrefix("e\n") && script.hasSuffix("endloop\non_finished:\n  cell_off\n\n"))
        #expect(ScriptChecker.check(script).isEmpty, "\(script)\n\(ScriptChecker.check(script))")
        let loop = technique == .ma ? "ca" : technique.rawValue
        #expect(script.contains("meas_loop_\(loop) "), "\(script)")
        #expect(script.contains("cell_on") == (technique != .ocp), "OCP keeps the cell off")
    }

    @Test(arguments: Technique.allCases)
    func everyBoundIsRefusedByNameWithItsValueAndBound(technique: Technique) throws {
        for parameter in technique.parameters {
            var outside: [Double] = []
            if let maximum = parameter.maximum { outside.append(maximum + max(1, abs(maximum))) }
            if let minimum = parameter.minimum { outside.append(minimum - max(1, abs(minimum))) }
            if parameter.minimumExcluded, let minimum = parameter.minimum { outside.append(minimum) }
            for value in outside {
                let method = try Method(technique: technique, values: [parameter.key: value])
                let problems = method.problems()
                let named = problems.first { $0.parameter == parameter.key }
                #expect(named != nil, "\(technique) \(parameter.key) = \(value): \(problems)")
                #expect(named?.message.hasPrefix("\(parameter.key) = \(MethodNumber.plain(value))") == true)
                #expect(named?.message.contains("must be \(parameter.bounds)") == true, "\(named?.message ?? "")")
                #expect(throws: MethodError.self) { try method.script() }
            }
        }
    }

    @Test func rulesAcrossParametersAndDerivedLimitsAreRefused() throws {
        let pulse = try Method(
            technique: .dpv,
            values: ["pulse_time": 0.2, "scan_rate": 0.05, "step_potential": 0.005]
        )
        #expect(pulse.problems().map(\.message).contains { $0.contains("the pulse time must be shorter") })
        let flat = try Method(technique: .lsv, values: ["begin_potential": 0.1, "end_potential": 0.1])
        #expect(flat.problems().map(\.message).contains("the end potential must differ from the begin potential"))
        // 2 V begin plus a 0.5 V pulse: every value in bounds, but the pulse leaves the instrument's span.
        let high = try Method(
            technique: .dpv,
            values: ["begin_potential": 1.5, "end_potential": 2, "pulse_potential": 0.5]
        )
        #expect(high.problems().contains { $0.message.contains("outside the instrument's span") }, "\(high.problems())")
        // 1 ms per point over BLE: more than the link carries; the same method on a faster link runs.
        let fast = try Method(technique: .ca, values: ["interval_time": 0.001, "run_time": 1])
        #expect(fast.problems().contains { $0.message.contains("points/s, more than the 150 points/s") })
        #expect(fast.problems(maximumPointRate: nil).isEmpty)
        // A day at 0.1 s is 864,000 points: too many for one method.
        let long = try Method(technique: .ca, values: ["run_time": 86_400])
        #expect(long.problems().contains { $0.message.contains("864000 points") }, "\(long.problems())")
    }

    @Test func anUnknownParameterNamesTheOnesThereAre() {
        #expect(throws: MethodError.unknownParameter("vertex", technique: .cv)) {
            try Method(technique: .cv, values: ["vertex": 1])
        }
        #expect(MethodError.unknownParameter("vertex", technique: .cv).description.contains("vertex1_potential"))
    }

    @Test func pointCountsFollowTheParameters() {
        var lsv = LinearSweepVoltammetry()
        (lsv.beginPotential, lsv.endPotential, lsv.stepPotential) = (-0.5, 0.5, 0.05)
        #expect(lsv.pointCount == 21)  // the published 10 kOhm LSV: 21 points
        var cv = CyclicVoltammetry()
        (cv.beginPotential, cv.vertex1Potential, cv.vertex2Potential, cv.stepPotential, cv.scans) = (
            0, 0.5, -0.5, 0.01, 3
        )
        #expect(cv.pointCount == 201 * 3)
        var eis = ElectrochemicalImpedanceSpectroscopy()
        eis.frequencies = 51
        #expect(eis.pointCount == 51)
        var ca = Chronoamperometry()
        (ca.intervalTime, ca.runTime) = (0.1, 5)
        #expect(ca.pointCount == 50)
    }

    @Test func theModeFollowsTheBandwidthAndTheWindow() throws {
        // A slow sweep within the low speed span: mode 2; a fast pulse: high speed (mode 3); EIS: mode 3.
        #expect(try Method(technique: .lsv).script().contains("set_pgstat_mode 2\n"))
        #expect(try Method(technique: .dpv, values: ["pulse_time": 0.005]).script().contains("set_pgstat_mode 3\n"))
        #expect(try Method(technique: .eis).script().contains("set_pgstat_mode 3\n"))
        // Slow, but down to -1.5 V (outside low speed's -1.25 V): max range (mode 4).
        let deep = try Method(technique: .lsv, values: ["begin_potential": -1.5, "end_potential": 0.5])
        #expect(try deep.script().contains("set_pgstat_mode 4\n"))
        // Fast and 2 V wide: no mode has both.
        let wide = try Method(
            technique: .dpv,
            values: ["begin_potential": -1, "end_potential": 1, "pulse_time": 0.005]
        )
        #expect(wide.problems().contains { $0.message.contains("wider than any potentiostat mode allows") })
    }

    @Test func numbersAreWrittenAsMethodSCRIPTWritesThem() {
        let cases: [(Double, String)] = [
            (0, "0"), (-0.5, "-500m"), (0.0125, "12500u"), (100_000, "100k"), (1_500, "1500"), (0.1, "100m"),
            (1e-7, "100n"), (2, "2"), (-1.7, "-1700m"), (1_000_000, "1M"), (0.016, "16m"),
        ]
        for (value, text) in cases { #expect(MethodNumber.text(value) == text, "\(value)") }
        #expect(MethodNumber.text(31, integer: true) == "31i")
    }

    @Test func theTypedAndTheKeyedFormsAgree() throws {
        var swv = SquareWaveVoltammetry()
        swv.frequency = 25
        let method = swv.method
        #expect(method.technique == .swv && method.values["frequency"] == 25)
        #expect(try Method(technique: .swv, values: ["frequency": 25]) == method)
        #expect(try method.script().contains("meas_loop_swv p c f r -500m 500m 5m 25m 25\n"))
    }

    /// Multistep amperometry: each level with a time is a CA loop at its potential, the levels run in turn
    /// `cycles` times inside a counted `loop`, a level of no time is left out, and the points are the
    /// cycles times each level's intervals.
    @Test func multistepAmperometryRunsItsLevelsInTurnCyclesTimes() throws {
        var ma = MultistepAmperometry()
        (ma.level1Potential, ma.level1Time, ma.level2Potential, ma.level2Time) = (0.1, 1, -0.2, 0.5)
        (ma.level3Potential, ma.level3Time, ma.intervalTime, ma.cycles) = (0.6, 0.3, 0.1, 4)
        #expect(ma.pointCount == 4 * (10 + 5 + 3))
        let script = try ma.method.script()
        #expect(ScriptChecker.check(script).isEmpty, "\(ScriptChecker.check(script))")
        let loops = script.split(separator: "\n").filter { $0.contains("meas_loop_ca") }
        #expect(
            loops.map { String($0) } == [
                "  meas_loop_ca p c 100m 100m 1", "  meas_loop_ca p c -200m 100m 500m",
                "  meas_loop_ca p c 600m 100m 300m",
            ]
        )
        #expect(script.contains("store_var cycle 0i ja\nloop cycle < 4i\n"))
        #expect(script.contains("  add_var cycle 1i\nendloop\non_finished:"))
        #expect(script.contains("set_range_minmax da -200m 600m\n"), "the window spans the used levels only")
        #expect(script.contains("set_e 100m\ncell_on\n"))
        // One cycle of one level: a plain CA loop, no counter.
        var once = MultistepAmperometry()
        (once.level2Time, once.cycles) = (0, 1)
        let plain = try once.method.script()
        #expect(!plain.contains("cycle") && plain.components(separatedBy: "meas_loop_ca").count == 2, "\(plain)")
        // A level shorter than an interval is refused by its number.
        let short = try Method(technique: .ma, values: ["level2_time": 0.05, "interval_time": 0.1])
        #expect(short.problems().map(\.message) == ["level 2 must last at least one interval time (or 0 to skip it)"])
    }

    @Test func settingsAreKeyEqualsNumberAndAMalformedOneIsNamed() throws {
        #expect(
            try Method.values(settings: ["scan_rate=0.05", "n_scans=2", "scan_rate=0.1"]) == [
                "scan_rate": 0.1, "n_scans": 2,
            ]
        )
        for bad in ["scan_rate", "scan_rate=", "scan_rate=fast", "scan_rate=inf", "=1e"] {
            #expect(throws: MethodError.malformedSetting(bad)) { try Method.values(settings: ["n_scans=2", bad]) }
        }
        #expect(
            MethodError.malformedSetting("x=y").description
                == "x=y: not KEY=VALUE with a number in SI units (scan_rate=0.05)"
        )
    }

    @Test func aTechniqueIsNamedInAnyCase() {
        #expect(Technique(named: "CV") == .cv && Technique(named: "Eis") == .eis && Technique(named: "cv ") == nil)
    }
}
