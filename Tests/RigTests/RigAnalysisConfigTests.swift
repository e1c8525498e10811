import Foundation
import PicoAnalysis
import Testing

@testable import RigCore

/// `[analysis]` and `[device.analysis]`: the rig's settings, a device's over them, off for one device,
/// and every bad setting located at its line.
@Suite struct RigAnalysisConfigTests {
    let tests = RigConfigParserTests()

    @Test func theRigsSettingsAndADevicesOverThem() throws {
        let text = """
            [rig]
            name = "r"

            [analysis]
            smooth = "off"
            circuit = "R(Q(RW))"

            [[device]]
            name = "a"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"

            [[device]]
            name = "b"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"
            [device.analysis]
            circuit = "R(RC)"
            min_height = 1e-7
            merge = true

            [[device]]
            name = "c"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"
            [device.analysis]
            enabled = false
            """
        guard case .success(let config) = try tests.parse(text) else {
            Issue.record("refused: \(try tests.problems(text))")
            return
        }
        #expect(config.analysis?.circuit.code == "R(Q(RW))" && config.analysis?.peaks.smoothingWindow == nil)
        let a = try #require(config.devices[0].analysis)
        #expect(a.circuit.code == "R(Q(RW))" && a.peaks.smoothingWindow == nil)
        let b = try #require(config.devices[1].analysis)
        #expect(b.circuit.code == "R(RC)" && b.peaks.smoothingWindow == nil, "the rig's smoothing stays")
        #expect(b.peaks.minimumHeight == 1e-7 && b.peaks.mergeOverlapping)
        #expect(config.devices[2].analysis == nil)
    }

    @Test func aConfigWithoutAnAnalysisTableAnalysesWithTheDefaults() throws {
        guard
            case .success(let config) = try tests.parse(
                "[rig]\nname = \"r\"\n[[device]]\nname = \"a\"\ntransport = \"sim\"\nscript = \"CV.mscr\"\nschedule = \"once\"\n"
            )
        else {
            Issue.record("refused")
            return
        }
        #expect(config.analysis == AnalysisSettings() && config.devices[0].analysis == AnalysisSettings())
    }

    @Test func badSettingsAreLocated() throws {
        let text = """
            [rig]
            name = "r"

            [analysis]
            smooth = 4
            weighting = "square"
            window = 3

            [[device]]
            name = "a"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"
            [device.analysis]
            circuit = "R(RX)"
            enabled = "no"
            """
        let found = try tests.problems(text)
        #expect(
            found == [
                "7 analysis.window: unknown key (known here: baseline, circuit, enabled, max_iterations, merge, min_height, min_width, scan_rate, smooth, smooth_order, weighting)",
                "5 analysis.smooth: 4: an odd number of points from 3, auto or off",
                "6 analysis.weighting: square: one of unit, modulus, proportional",
                "16 device.analysis \"a\".enabled: must be true or false, not string",
                "15 device.analysis \"a\".circuit: R(RX): position 4: 'X' is not an element (R, C, L, Q, W) or a parenthesis",
            ]
        )
    }

    @Test func aMethodFileSaysHowItsRunIsAnalysed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("method-\(UUID().uuidString).toml")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "technique = \"eis\"\n\n[analysis]\ncircuit = \"R(Q(RW))\"\n".write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        let loaded = try MethodFile.loadWithAnalysis(path: path)
        #expect(loaded.method.technique == .eis && loaded.analysis?.circuit.code == "R(Q(RW))")
        try "technique = \"cv\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try MethodFile.loadWithAnalysis(path: path).analysis == AnalysisSettings())
        try "technique = \"cv\"\n[analysis]\nenabled = false\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try MethodFile.loadWithAnalysis(path: path).analysis == nil)
        try "technique = \"cv\"\n[analysis]\nbaseline = \"0.1\"\n".write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        #expect(throws: ConfigProblems.self) { try MethodFile.loadWithAnalysis(path: path) }
        do {
            _ = try MethodFile.loadWithAnalysis(path: path)
        } catch {
            #expect(error.problems.map(\.line) == [3] && error.problems.map(\.key) == ["analysis.baseline"])
        }
    }
}
