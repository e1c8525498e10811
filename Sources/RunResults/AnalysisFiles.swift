import Foundation
import PicoAnalysis
import PicoLink

/// A run's analysis as two files beside its per-point files: `.results.json`
/// (`{"device":…,"run":…,"kind":"peaks","note":null,"analysed_at":"…","results":{…}}`) and
/// `.results.csv` (`AnalysisCSV`: a row per peak or per fitted parameter; the header alone when there
/// is nothing, and `# note:` saying why).
public struct AnalysisFiles {
    let json: SinkFile
    let csv: SinkFile

    /// The two files, opened.
    public init(json: SinkFile, csv: SinkFile) {
        self.json = json
        self.csv = csv
    }

    /// Opens `base.results.json` and `base.results.csv` (new files unless `overwrite`).
    public init(base: String, overwrite: Bool) throws(SinkError) {
        json = try SinkFile(path: base + ".results.json", overwrite: overwrite)
        csv = try SinkFile(path: base + ".results.csv", overwrite: overwrite)
    }

    /// Writes `analysis` of `device`'s run `deviceRun` into both files and syncs them.
    public func write(_ analysis: StoredAnalysis, deviceRun: Int, device: String) throws(SinkError) {
        try json.write(analysis.json(device: device, deviceRun: deviceRun) + "\n")
        try json.sync()
        let table: String
        if let results = analysis.results {
            table = AnalysisCSV.table([results])
        } else {
            table =
                "# note: \(analysis.note ?? "nothing to analyse")\n" + AnalysisCSV.peakHeader.joined(separator: ",")
                + "\n"
        }
        try csv.write(table)
        try csv.sync()
    }
}
