import MethodSCRIPT

/// A method file (`hcipico connect … --method cv.toml`): `technique` and the parameters at the top level.
public enum MethodFile {
    /// The method in the file at `path`, checked.
    /// - Throws: `ConfigProblems`, each located at its file and line.
    public static func load(path: String) throws(ConfigProblems) -> Method {
        let document = try TOMLDocument(text: try TOMLDocument.read(path, what: "it"), file: path)
        var reader = document.reader(file: path)
        guard let method = MethodTableReader.read(document.table, table: "", index: nil, reader: &reader) else {
            throw ConfigProblems(problems: reader.problems)
        }
        return method
    }
}
