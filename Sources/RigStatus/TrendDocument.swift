import Foundation
import PicoAnalysis
import RigJournal
import RunResults

/// The JSON of `/api/trend`: a device's latest analysed runs, oldest first, and a series per result that
/// the runs share (a value per run, null where a run has none): for voltammetry each current column's
/// most prominent peak per direction (its height above the baseline and its potential), for EIS each
/// fitted parameter and χ². What the page draws as a trend per device.
struct TrendDocument: Encodable {
    struct RunPart: Encodable {
        var id: Int64
        var deviceRun: Int
        var startedAt: Double
        var kind: String
    }

    struct Series: Encodable {
        var name: String
        var unit: String
        var values: [Double?]
    }

    var device: String
    var runs: [RunPart]
    var series: [Series]

    /// The most runs one trend shows.
    static let limit = 200

    init(device: String, analyses: [(RunSummary, StoredAnalysis)]) {
        self.device = device
        runs = analyses.map { run, analysis in
            RunPart(id: run.id, deviceRun: run.deviceRun, startedAt: run.startedAt, kind: analysis.kind.rawValue)
        }
        var order: [String] = []
        var units: [String: String] = [:]
        var values: [String: [Int: Double]] = [:]
        for (position, (_, analysis)) in analyses.enumerated() {
            guard let results = analysis.results else { continue }
            for (name, unit, value) in Self.values(of: results) {
                if units[name] == nil {
                    order.append(name)
                    units[name] = unit
                }
                values[name, default: [:]][position] = value.isFinite ? value : nil
            }
        }
        series = order.map { name in
            Series(
                name: name,
                unit: units[name] ?? "",
                values: analyses.indices.map { values[name]?[$0] }
            )
        }
    }

    /// The values one run contributes: named, with units.
    static func values(of results: RunAnalysis) -> [(String, String, Double)] {
        var out: [(String, String, Double)] = []
        var strongest: [String: VoltammetricPeak] = [:]
        var keys: [String] = []
        for (curve, peak) in results.peaks {
            let key = "\(curve) \(peak.direction.rawValue) peak"
            if let known = strongest[key], known.prominence >= peak.prominence { continue }
            if strongest[key] == nil { keys.append(key) }
            strongest[key] = peak
        }
        for key in keys {
            guard let peak = strongest[key] else { continue }
            out.append(("\(key) height", "A", peak.height))
            out.append(("\(key) potential", "V", peak.potential))
        }
        if let fit = results.fit {
            for (index, parameter) in fit.circuit.parameters.enumerated() {
                out.append(("\(parameter.name) (\(fit.circuit.code))", parameter.unit, fit.values[index]))
            }
            out.append(("χ² (\(fit.circuit.code))", "", fit.chiSquared))
        }
        return out
    }
}
