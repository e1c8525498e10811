import Foundation
import Testing

/// `hcipico analyze` on what `connect sim` records: the simulated Randles cell's circuit back within 1 %,
/// the redox couple's DPV peak where theory puts it and its CV peaks on each side of E0, SWV's reverse
/// current negative; bad input refused (64) and a fit given up said so (9).
@Suite struct AnalyzeCommandLineTests {
    static func record(_ arguments: [String], in directory: URL) async throws {
        let result = try await MethodCommandLineTests.run(
            ["connect", "sim", "--fast", "--quiet", "--csv", "run.csv"] + arguments,
            in: directory
        )
        #expect(result.status == 0, "\(result.error)")
    }

    static func json(_ text: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return try #require(object?["runs"] as? [[String: Any]])
    }

    @Test func theRandlesCellsCircuitComesBack() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.record(["--technique", "eis", "--sim-cell", "randles"], in: directory)
        let result = try await MethodCommandLineTests.run(["analyze", "run.csv", "--json"], in: directory)
        #expect(result.status == 0, "\(result.error)")
        let fit = try #require(try Self.json(result.output).first?["fit"] as? [String: Any])
        let values = try #require(fit["parameters"] as? [[String: Any]]).compactMap { $0["value"] as? Double }
        // The simulator's Randles cell: 560 Ω in series with 10 kΩ parallel to 33 nF.
        for (value, truth) in zip(values, [560, 10_000, 33e-9]) {
            #expect(abs(value - truth) <= 0.01 * truth, "\(values)")
        }
        #expect(values.count == 3)
        let table = try await MethodCommandLineTests.run(["analyze", "run.csv"], in: directory)
        #expect(table.output.hasPrefix("run 1: R(RC) fitted (modulus weighting"), "\(table.output)")
        let givenUp = try await MethodCommandLineTests.run(
            ["analyze", "run.csv", "--circuit", "R(Q(RW))", "--max-iterations", "1"],
            in: directory
        )
        #expect(givenUp.status == 9, "\(givenUp.error)")
        #expect(givenUp.error.contains("run 1: the fit did not converge after 1 iterations"), "\(givenUp.error)")
        #expect(givenUp.output.contains("R(Q(RW)) not fitted"))
    }

    @Test func theRedoxCouplesPeaksAreWhereTheoryPutsThem() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // DPV: one peak at E0 − ΔE/2 = 0.1 − 0.025 V (steps of 5 mV).
        try await Self.record(["--technique", "dpv", "--sim-cell", "redox"], in: directory)
        let dpv = try await MethodCommandLineTests.run(["analyze", "run.csv", "--json"], in: directory)
        #expect(dpv.status == 0, "\(dpv.error)")
        let peaks = try #require(
            (try Self.json(dpv.output).first?["peaks"] as? [String: Any])?["c"] as? [[String: Any]]
        )
        #expect(peaks.count == 1, "\(peaks)")
        let potential = try #require(peaks.first?["potential"] as? Double)
        #expect(abs(potential - 0.075) <= 0.005 + 1e-9, "\(potential)")
        // CV: an anodic peak above E0 and a cathodic one below, symmetric about it within a step (10 mV
        // steps, each sampled at its end: the staircase puts them 40 mV from E0 rather than the 29 mV of a
        // linear sweep).
        try FileManager.default.removeItem(at: directory.appendingPathComponent("run.csv"))
        try await Self.record(["--technique", "cv", "--sim-cell", "redox"], in: directory)
        let cv = try await MethodCommandLineTests.run(
            ["analyze", "run.csv", "--json", "--scan-rate", "0.1"],
            in: directory
        )
        let cvPeaks = try #require(
            (try Self.json(cv.output).first?["peaks"] as? [String: Any])?["c"] as? [[String: Any]]
        )
        #expect(cvPeaks.compactMap { $0["direction"] as? String } == ["anodic", "cathodic"], "\(cvPeaks)")
        let (anodic, cathodic) = (cvPeaks[0]["potential"] as? Double ?? 0, cvPeaks[1]["potential"] as? Double ?? 0)
        #expect(anodic > 0.1 && cathodic < 0.1 && abs((anodic + cathodic) / 2 - 0.1) <= 0.01, "\(anodic) \(cathodic)")
        #expect(abs(anodic - 0.14) <= 0.01 && abs(cathodic - 0.06) <= 0.01, "\(anodic) \(cathodic)")
        #expect((cvPeaks[0]["charge"] as? Double ?? 0) > 0 && (cvPeaks[1]["current"] as? Double ?? 0) < 0)
        // SWV: the reverse current's peak is negative on a rising sweep.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("run.csv"))
        try await Self.record(["--technique", "swv", "--sim-cell", "redox"], in: directory)
        let swv = try await MethodCommandLineTests.run(["analyze", "run.csv", "--json"], in: directory)
        let currents = try #require(try Self.json(swv.output).first?["peaks"] as? [String: Any])
        let reverse = try #require((currents["r"] as? [[String: Any]])?.first?["current"] as? Double)
        let forward = try #require((currents["f"] as? [[String: Any]])?.first?["current"] as? Double)
        #expect(reverse < 0 && forward > 0, "\(currents)")
    }

    @Test func badInputIsRefused() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try await MethodCommandLineTests.run(["analyze", "none.csv"], in: directory)
        #expect(missing.status == 64 && missing.error.contains("none.csv: cannot be read"))
        try "p [V],c [A]\n0.1,2e-6\n0.2\n".write(
            to: directory.appendingPathComponent("short.csv"),
            atomically: true,
            encoding: .utf8
        )
        let short = try await MethodCommandLineTests.run(["analyze", "short.csv"], in: directory)
        #expect(
            short.status == 64 && short.error.contains("short.csv: line 3: 1 cells where the header has 2"),
            "\(short.error)"
        )
        let circuit = try await MethodCommandLineTests.run(["analyze", "short.csv", "--circuit", "R(X"], in: directory)
        #expect(
            circuit.status == 64 && circuit.error.contains("--circuit R(X: position 3: 'X' is not an element"),
            "\(circuit.error)"
        )
        let smooth = try await MethodCommandLineTests.run(["analyze", "short.csv", "--smooth", "4"], in: directory)
        #expect(smooth.status == 64 && smooth.error.contains("--smooth 4"), "\(smooth.error)")
        try "a,b\n1,2\n".write(to: directory.appendingPathComponent("other.csv"), atomically: true, encoding: .utf8)
        let other = try await MethodCommandLineTests.run(["analyze", "other.csv"], in: directory)
        #expect(other.status == 64 && other.error.contains("no potential and current"), "\(other.error)")
    }
}
