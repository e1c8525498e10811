import Foundation
import MethodSCRIPT
import PicoSimulator
import Testing

/// Every technique's method runs on the simulator: the script it renders is taken and yields the number
/// of points its parameters imply, for the defaults and for random parameters within every bound.
@Suite struct MethodSimulationTests {
    /// The reply's data packages, after checking it ran to its end without a device error.
    static func packages(of script: String) -> (count: Int, reply: String) {
        let reply = PicoHarness().run(script: script, timeout: 60)
        let lines = reply.split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.filter { $0.hasPrefix("P") }.count, reply)
    }

    @Test(arguments: Technique.allCases)
    func theDefaultsRunAndMakeTheirPoints(technique: Technique) throws {
        let method = try Method(technique: technique)
        let (count, reply) = Self.packages(of: try method.script())
        #expect(!reply.contains("!"), "\(technique): \(reply.prefix(300))")
        #expect(Double(count) == method.typed.pointCount, "\(technique): \(count) packages")
    }

    /// Random values within each parameter's bounds (log-uniform over the positive ones, kept to runs of
    /// a few thousand points so the suite stays quick): a method the checks accept renders a script the
    /// checker takes and the simulator runs to exactly its point count; one they refuse says why.
    @Test(arguments: Technique.allCases)
    func randomParametersWithinTheBoundsRunOrAreRefusedWithAReason(technique: Technique) throws {
        var generator = SystemRandomNumberGenerator()
        var ran = 0
        var drawn = 0
        // Forty draws, and more (up to a thousand) until one runs: the checks refuse most random DPV
        // methods, and forty refusals in a row happened once in a full unit run.
        while drawn < 40 || (ran == 0 && drawn < 1000) {
            drawn += 1
            var values: [String: Double] = [:]
            for parameter in technique.parameters {
                values[parameter.key] = Self.draw(parameter, using: &generator)
            }
            let method = try Method(technique: technique, values: values)
            let problems = method.problems()
            guard problems.isEmpty else {
                #expect(problems.allSatisfy { !$0.message.isEmpty })
                continue
            }
            let script = try method.script()
            #expect(ScriptChecker.check(script).isEmpty, "\(script)")
            guard method.typed.pointCount <= 3000 else { continue }
            let (count, reply) = Self.packages(of: script)
            #expect(!reply.contains("!"), "\(values): \(reply.prefix(300))")
            #expect(Double(count) == method.typed.pointCount, "\(values): \(count) packages")
            ran += 1
        }
        #expect(ran > 0, "no random \(technique) method ran in \(drawn) draws")
    }

    /// A value within the parameter's bounds, with spans kept to what runs quickly.
    static func draw(_ parameter: MethodParameter, using generator: inout some RandomNumberGenerator) -> Double {
        let quick: [String: ClosedRange<Double>] = [
            "run_time": 0.5...20, "interval_time": 0.05...1, "scans": 1...3, "frequencies": 2...40,
            "step_potential": 0.002...0.05, "equilibration_time": 0...0.5, "scan_rate": 0.01...1,
            "pulse_time": 0.001...0.1, "frequency": 1...100, "min_frequency": 0.1...1000, "cycles": 1...3,
            "level1_time": 0.05...2, "level2_time": 0...2, "level3_time": 0...2, "level4_time": 0...2,
        ]
        let low = max(parameter.minimum ?? -2, quick[parameter.key]?.lowerBound ?? -.infinity)
        let high = min(parameter.maximum ?? 2, quick[parameter.key]?.upperBound ?? .infinity)
        var value: Double
        if low > 0 {
            value = exp(Double.random(in: log(low)...log(high), using: &generator))
        } else {
            value = Double.random(in: low...high, using: &generator)
        }
        if parameter.isInteger { value = value.rounded() }
        // MethodSCRIPT writes whole numbers of a unit's small parts: keep 1 µV, 1 µs, 1 nA steps.
        return (value * 1e9).rounded() / 1e9
    }
}
