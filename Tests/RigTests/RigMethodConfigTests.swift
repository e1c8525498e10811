import Foundation
import PicoLink
import RigCore
import Testing

/// A rig device may take a method table (`[device.method]`) instead of a script file: the rig renders and
/// checks it as it reads the config, and every problem is told at its line and key.
@Suite struct RigMethodConfigTests {
    /// The config checked as `RigConfigParserTests` checks one.
    func parse(_ text: String) throws -> Result<RigConfig, ConfigProblems> { try RigConfigParserTests().parse(text) }

    @Test func aMethodTableBecomesTheDevicesScript() throws {
        let text = """
            [rig]
            name = "methods"

            [[device]]
            name = "a"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"

            [[device]]
            name = "b"
            transport = "sim"
            schedule = "continuous"
            [device.method]
            technique = "dpv"
            begin_potential = -0.2
            end_potential = 0.4
            pulse_time = 0.01
            """
        let config = try parse(text).get()
        let device = try #require(config.devices.last)
        #expect(device.scriptPath == "method dpv")
        #expect(device.scriptText.contains("meas_loop_dpv p c -200m 400m 5m 50m 10m 50m\n"), "\(device.scriptText)")
        #expect(device.script.packageLayouts == [["p", "c"]])
    }

    @Test func everyProblemOfAMethodIsLocatedAtItsKey() throws {
        let text = """
            [rig]
            name = "methods"

            [[device]]
            name = "a"
            transport = "sim"
            schedule = "once"
            [device.method]
            technique = "cv"
            scan_rate = 0
            vertex = 1

            [[device]]
            name = "b"
            transport = "sim"
            schedule = "once"
            [device.method]
            technique = "swv"
            frequency = "fast"

            [[device]]
            name = "c"
            transport = "sim"
            schedule = "once"
            script = "CV.mscr"
            [device.method]
            technique = "lsv"

            [[device]]
            name = "d"
            transport = "sim"
            schedule = "once"
            [device.method]
            technique = "xyz"
            """
        guard case .failure(let problems) = try parse(text) else {
            Issue.record("the config was taken")
            return
        }
        let lines = problems.problems.map { "\($0.line.map(String.init) ?? "-") \($0.key): \($0.message)" }
        #expect(lines.contains { $0.hasPrefix("11 ") && $0.contains("vertex: unknown key") }, "\(lines)")
        #expect(
            lines.contains(
                "10 device.method \"a\".scan_rate: scan_rate = 0 V/s: must be above 0 V/s and at most 10 V/s"
            ),
            "\(lines)"
        )
        #expect(lines.contains { $0.hasPrefix("19 ") && $0.contains("frequency: must be a number in Hz") }, "\(lines)")
        #expect(lines.contains { $0.contains("\"c\".method: give script or method, not both") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("34 ") && $0.contains("no technique xyz") }, "\(lines)")
    }
}
