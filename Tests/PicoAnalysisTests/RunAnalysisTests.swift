import Foundation
import Testing

@testable import PicoAnalysis

/// A run's results as every output carries them: settings given as text, JSON that reads back equal, CSV
/// rows, and a point table built row by row.
@Suite struct RunAnalysisTests {
    static let peak = VoltammetricPeak(
        scan: 1,
        sweep: 2,
        direction: .cathodic,
        index: 40,
        potential: 0.06,
        current: -9.5e-6,
        baselineCurrent: 2.25e-6,
        height: -1.18e-5,
        prominence: 8.1e-6,
        width: 0.196,
        area: -2.86e-6,
        charge: nil,
        leftFoot: 0.5,
        rightFoot: -0.5,
        leftFootBaseline: 2.1e-6,
        rightFootBaseline: 2.4e-6
    )

    @Test func settingsAreGivenInWordsAndRefusedWithTheirName() throws {
        let settings = try AnalysisSettings()
            .with("smooth", "11")
            .with("smooth_order", "3")
            .with("min_height", "1e-7")
            .with("merge", "true")
            .with("baseline", "-0.2, 0.4")
            .with("scan_rate", "0.05")
            .with("circuit", "R(Q(RW))")
            .with("weighting", "proportional")
            .with("max_iterations", "50")
        #expect(settings.peaks.smoothingWindow == 11 && settings.peaks.smoothingOrder == 3)
        #expect(settings.peaks.minimumHeight == 1e-7 && settings.peaks.mergeOverlapping)
        #expect(settings.peaks.baseline == .through(-0.2, 0.4))
        #expect(settings.scanRate == 0.05 && settings.circuit.code == "R(Q(RW))")
        #expect(settings.weighting == .proportional && settings.maximumIterations == 50)
        #expect(try settings.with("smooth", "off").peaks.smoothingWindow == nil)
        #expect(try settings.with("min_height", "auto").peaks.minimumHeight == nil)

        let refused: [(String, String, String)] = [
            ("smooth", "4", "smooth"), ("smooth", "3", "smooth_order"), ("min_width", "-1", "min_width"),
            ("merge", "yes", "merge"), ("baseline", "0.1,0.1", "baseline"), ("scan_rate", "0", "scan_rate"),
            ("circuit", "R(RX)", "circuit"), ("weighting", "square", "weighting"),
            ("max_iterations", "0", "max_iterations"), ("window", "5", "window"),
        ]
        for (name, value, blamed) in refused {
            #expect(throws: AnalysisSettings.SettingError.self) { try settings.with(name, value) }
            do {
                _ = try settings.with(name, value)
            } catch {
                #expect(error.setting == blamed, "\(name) = \(value): \(error)")
            }
        }
    }

    @Test func resultsReadBackFromTheirJSON() throws {
        let circuit = try EquivalentCircuit("R(RC)")
        let frequencies = (0..<25).map { pow(10, 5 - Double($0) / 5) }
        let spectrum = ImpedanceSpectrum(
            frequencies: frequencies,
            impedances: frequencies.map { circuit.impedance(at: $0, [100, 1000, 1e-6]) }
        )
        let analyses = [
            RunAnalysis(run: 1, results: [.peaks(current: "c", [Self.peak]), .peaks(current: "f", [])]),
            RunAnalysis(run: 2, results: [.fit(try CircuitFitter.fit(circuit, to: spectrum))]),
            RunAnalysis(run: 3, results: [.fitFailed(circuit, .tooFewPoints(points: 1, parameters: 3))]),
        ]
        for analysis in analyses {
            let json = analysis.json
            #expect(!json.contains("nan"), "\(json)")
            let back = try RunAnalysis.decoder.decode(RunAnalysis.self, from: Data(json.utf8))
            #expect(back == analysis, "\(json)")
        }
        #expect(analyses[0].json.contains("\"baseline_current\":2.25e-06"))
        #expect(analyses[2].json.contains("\"error\":\"1 points are too few for 3 parameters\""))
    }

    @Test func resultsAsCSVRows() throws {
        let peaks = AnalysisCSV.table([RunAnalysis(run: 7, results: [.peaks(current: "c", [Self.peak])])])
        let lines = peaks.split(separator: "\n")
        #expect(lines.first.map(String.init) == AnalysisCSV.peakHeader.joined(separator: ","))
        #expect(
            lines.last
                == "7,c,1,2,cathodic,0.06,-9.5e-06,2.25e-06,-1.18e-05,8.1e-06,0.196,-2.86e-06,,0.5,-0.5,2.1e-06,2.4e-06"
        )
        let circuit = try EquivalentCircuit("R(RC)")
        let failed = AnalysisCSV.table([
            RunAnalysis(run: 3, results: [.fitFailed(circuit, .badInitialValues("R1 below 0, and more"))])
        ])
        #expect(failed.hasSuffix("3,R(RC),,false,,,,,,,,\"initial values: R1 below 0, and more\"\n"))
    }
}
