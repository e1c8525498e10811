import MethodSCRIPT
import TOMLKit

/// Reads a method from TOML: `technique = "cv"` and the technique's parameters in SI units (V, s, V/s, Hz,
/// A), as a rig device's `[device.method]` table or a method file's top level. Every problem is recorded
/// at its key's line: an unknown technique or parameter (naming the ones there are), a value that is not
/// a number, and everything `Method.problems` refuses (at the parameter it names, else at `technique`).
enum MethodTableReader {
    /// The method `table` holds; `alsoAllowed` are keys that belong to the file around it (a method file's
    /// `analysis`).
    static func read(
        _ table: TOMLTable,
        table name: String,
        index: Int?,
        reader: inout ConfigReader,
        alsoAllowed: Set<String> = []
    ) -> Method? {
        let before = reader.problems.count
        guard let techniqueName = reader.string(table, table: name, index: index, key: "technique", required: true)
        else { return nil }
        guard let technique = Technique(named: techniqueName) else {
            reader.problem(
                table: name,
                index: index,
                key: "technique",
                "\(MethodError.unknownTechnique(techniqueName))"
            )
            return nil
        }
        let keys = Set(technique.parameters.map(\.key))
        reader.unknownKeys(in: table, table: name, index: index, allowed: keys.union(["technique"]).union(alsoAllowed))
        var values: [String: Double] = [:]
        for parameter in technique.parameters {
            guard let value = table[parameter.key] else { continue }
            if let number = value.double ?? value.int.map(Double.init) {
                values[parameter.key] = number
            } else {
                let unit = parameter.unit.isEmpty ? "" : " in \(parameter.unit)"
                reader.problem(
                    table: name,
                    index: index,
                    key: parameter.key,
                    "must be a number\(unit) (\(parameter.meaning)), not \(value.type)"
                )
            }
        }
        // The values that are numbers are checked even when another key is wrong: one pass tells all.
        guard let method = try? Method(technique: technique, values: values) else { return nil }
        for problem in method.problems() {
            reader.problem(table: name, index: index, key: problem.parameter ?? "technique", problem.message)
        }
        return reader.problems.count == before ? method : nil
    }
}
