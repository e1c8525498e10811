public import MethodSCRIPT
public import PicoAnalysis

/// A method file (`hcipico connect … --method cv.toml`): `technique` and the parameters at the top level,
/// and optionally an `[analysis]` table saying how the run is analysed (as a rig's; see
/// `AnalysisTableReader`).
public enum MethodFile {
    /// The method in the file at `path`, checked.
    /// - Throws: `ConfigProblems`, each located at its file and line.
    public static func load(path: String) throws(ConfigProblems) -> Method {
        try loadWithAnalysis(path: path).method
    }

    /// The method in the file at `path` and its analysis settings (the defaults without an `[analysis]`
    /// table; nil when it says `enabled = false`), checked.
    public static func loadWithAnalysis(
        path: String
    ) throws(ConfigProblems) -> (
        method: Method, analysis: AnalysisSettings?
    ) {
        let document = try TOMLDocument(text: try TOMLDocument.read(path, what: "it"), file: path)
        var reader = document.reader(file: path)
        var analysis: AnalysisSettings? = AnalysisSettings()
        if let table = reader.table(document.table, "analysis", required: false) {
            analysis = AnalysisTableReader.read(table, table: "analysis", base: analysis, reader: &reader)
        }
        let method = MethodTableReader.read(
            document.table,
            table: "",
            index: nil,
            reader: &reader,
            alsoAllowed: ["analysis"]
        )
        guard let method, reader.problems.isEmpty else { throw ConfigProblems(problems: reader.problems) }
        return (method, analysis)
    }
}
