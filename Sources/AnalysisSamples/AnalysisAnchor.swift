import Foundation

/// Runs `Tests/Peers/analysis_anchor.py` (scipy's peak pipeline, impedance.py's fits) over jobs given as
/// JSON objects, for the tests that compare with it and for Bench.
public enum AnalysisAnchor {
    /// Why the anchor gave no results.
    public struct Failure: Error, CustomStringConvertible {
        /// In words.
        public let description: String
    }

    /// The checkout's root (this file is in `Sources/AnalysisSamples/`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The pinned .venv/'s Python, when it is there.
    public static var venvPython: URL? {
        let python = root.appendingPathComponent(".venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: python.path) ? python : nil
    }

    /// The anchor's result for each of `jobs`, in order; with `bench` above 0 each also has `seconds`, the
    /// median time of one call over that many.
    public static func run(_ jobs: [[String: Any]], python: URL, bench: Int = 0) throws -> [[String: Any]] {
        let process = Process()
        process.executableURL = python
        process.arguments =
            [root.appendingPathComponent("Tests/Peers/analysis_anchor.py").path]
            + (bench > 0 ? ["--bench", "\(bench)"] : [])
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: jobs))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let results = try JSONSerialization.jsonObject(with: data) as? [[String: Any]], results.count == jobs.count
        else { throw Failure(description: "the analysis anchor exited \(process.terminationStatus)") }
        return results
    }
}
