import Foundation
import SpecTables

/// Generates the MethodSCRIPT checker's command table, the instrument's limits and the typed methods in
/// `Sources/MethodSCRIPT/Generated/` from `Specs/methodscript/commands.csv`, `instrument-limits.csv`,
/// `techniques.csv`, `technique-parameters.csv` and `technique-rules.csv`.
struct MethodGenerator: SpecGenerator {
    static let folder = "Sources/MethodSCRIPT/Generated"
    static let argumentKinds = [
        "declare", "target", "variable", "value", "integer", "type", "condition", "string", "block",
    ]
    static let units: Set<String> = ["", "V", "A", "Hz", "s", "V/s"]
    static let commandKinds = [
        "statement", "loop", "end_loop", "if", "else_if", "else", "end_if", "on_finished", "measurement_loop",
        "package_start", "package_add", "package_end",
    ]

    func generate(root: URL) throws -> [GeneratedFile] {
        let limits = try CSVTable(root: root, path: "Specs/methodscript/instrument-limits.csv")
        let commands = try CSVTable(root: root, path: "Specs/methodscript/commands.csv")
        let techniques = try CSVTable(root: root, path: "Specs/methodscript/techniques.csv")
        let parameters = try CSVTable(root: root, path: "Specs/methodscript/technique-parameters.csv")
        let rules = try CSVTable(root: root, path: "Specs/methodscript/technique-rules.csv")
        let limitNames = try Set(limits.rows.map { try $0.required("name", in: limits) })
        return [
            try limitsFile(limits),
            try commandsFile(commands, limitNames: limitNames),
            try techniquesFile(techniques, parameters, rules, limits: limits),
        ]
    }

    // MARK: Limits

    private func limitsFile(_ table: CSVTable) throws -> GeneratedFile {
        var body = "extension InstrumentLimit {\n"
        var names: [String] = []
        for row in table.rows {
            let name = try row.required("name", in: table)
            let swift = Self.camelCase(name)
            names.append(swift)
            let minimum = try Self.optionalNumber(row.optional("minimum") ?? "", row, table)
            let maximum = try Self.optionalNumber(row.optional("maximum") ?? "", row, table)
            let meaning = try row.required("meaning", in: table)
            body +=
                "    /// \(meaning.prefix(1).uppercased() + meaning.dropFirst()) (\(try row.required("source", in: table))).\n"
            body += "    public static let \(swift) = InstrumentLimit(\n"
            body += "        name: \(SwiftLiteral.quoted(name)),\n"
            body += "        minimum: \(minimum),\n        maximum: \(maximum),\n"
            body += "        minimumExcluded: \(row.optional("minimum_excluded") == "yes"),\n"
            body += "        unit: \(SwiftLiteral.quoted(row.optional("unit") ?? "")),\n"
            body += "        meaning: \(SwiftLiteral.quoted(meaning))\n    )\n"
        }
        body += "\n    /// Every limit of the table, by its name there (`potential`, `eis_frequency`, …).\n"
        body += "    public static let byName: [String: InstrumentLimit] = [\n"
        for name in names { body += "        \(name).name: \(name),\n" }
        body += "    ]\n}\n"
        return GeneratedFile(
            path: "\(Self.folder)/InstrumentLimit+Generated.swift",
            specs: ["Specs/methodscript/instrument-limits.csv"],
            body: body
        )
    }

    // MARK: Commands

    private func commandsFile(_ table: CSVTable, limitNames: Set<String>) throws -> GeneratedFile {
        var body = "extension ScriptCommandSignature {\n"
        body += "    /// Every command the checker knows, by its word.\n"
        body += "    public static let table: [String: ScriptCommandSignature] = [\n"
        for row in table.rows {
            let command = try row.required("command", in: table)
            let kind = try row.required("kind", in: table)
            guard Self.commandKinds.contains(kind) else {
                throw SpecError(file: table.path, line: row.line, message: "unknown command kind '\(kind)'")
            }
            var arguments: [String] = []
            for spec in (row.optional("arguments") ?? "").split(separator: " ") {
                let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                guard parts.count >= 2, parts.count <= 4, Self.argumentKinds.contains(parts[1]) else {
                    throw SpecError(file: table.path, line: row.line, message: "bad argument '\(spec)'")
                }
                let unit = parts.count > 2 ? parts[2] : ""
                guard Self.units.contains(unit) else {
                    throw SpecError(file: table.path, line: row.line, message: "'\(spec)': unknown unit '\(unit)'")
                }
                var bound = "nil"
                if parts.count > 3, !parts[3].isEmpty {
                    guard limitNames.contains(parts[3]) else {
                        throw SpecError(file: table.path, line: row.line, message: "unknown limit '\(parts[3])'")
                    }
                    bound = ".\(Self.camelCase(parts[3]))"
                }
                arguments.append(
                    ".init(name: \(SwiftLiteral.quoted(parts[0])), kind: .\(parts[1]), unit: "
                        + "\(SwiftLiteral.quoted(unit)), bound: \(bound))"
                )
            }
            let simulated = try row.required("simulated", in: table) == "yes"
            body += "        \(SwiftLiteral.quoted(command)): ScriptCommandSignature(\n"
            body += "            name: \(SwiftLiteral.quoted(command)),\n"
            body += "            arguments: [\(arguments.joined(separator: ", "))],\n"
            body += "            kind: .\(Self.camelCase(kind)),\n"
            body += "            simulated: \(simulated),\n"
            let instruments = (row.optional("instruments") ?? "").split(separator: " ")
            body +=
                "            onlyOn: [\(instruments.map { SwiftLiteral.quoted(String($0)) }.joined(separator: ", "))],\n"
            body += "            meaning: \(SwiftLiteral.quoted(try row.required("meaning", in: table)))\n"
            body += "        ),\n"
        }
        body += "    ]\n}\n"
        return GeneratedFile(
            path: "\(Self.folder)/ScriptCommandSignature+Generated.swift",
            specs: ["Specs/methodscript/commands.csv", "Specs/methodscript/instrument-limits.csv"],
            body: body
        )
    }

    // MARK: Techniques

    private struct Parameter {
        let key: String
        let swift: String
        let unit: String
        let minimum: String
        let maximum: String
        let minimumExcluded: Bool
        let defaultValue: String
        let integer: Bool
        let meaning: String
    }

    private func parameters(
        of technique: String,
        _ table: CSVTable,
        limits: CSVTable
    ) throws -> [Parameter] {
        var limitRows: [String: CSVTable.Row] = [:]
        for row in limits.rows { limitRows[try row.required("name", in: limits)] = row }
        var result: [Parameter] = []
        for row in table.rows {
            let owners = try row.required("technique", in: table).split(separator: " ").map(String.init)
            guard owners.contains(technique) else { continue }
            func bound(_ column: String) throws -> (value: String, excluded: Bool) {
                let text = try row.required(column, in: table)
                if let limit = limitRows[text] {
                    let value = limit.optional(column) ?? ""
                    let excluded = column == "minimum" && limit.optional("minimum_excluded") == "yes"
                    return (try Self.optionalNumber(value, limit, limits), excluded)
                }
                return (try Self.optionalNumber(text, row, table), false)
            }
            let minimum = try bound("minimum")
            let maximum = try bound("maximum")
            result.append(
                Parameter(
                    key: try row.required("parameter", in: table),
                    swift: try row.required("swift", in: table),
                    unit: row.optional("unit") ?? "",
                    minimum: minimum.value,
                    maximum: maximum.value,
                    minimumExcluded: minimum.excluded,
                    defaultValue: try Self.optionalNumber(try row.required("default", in: table), row, table),
                    integer: row.optional("integer") == "yes",
                    meaning: try row.required("meaning", in: table)
                )
            )
        }
        return result
    }

    private func techniquesFile(
        _ techniques: CSVTable,
        _ parameterTable: CSVTable,
        _ rules: CSVTable,
        limits: CSVTable
    ) throws -> GeneratedFile {
        var enumBody = "/// The techniques of `Specs/methodscript/techniques.csv`, each a typed method.\n"
        enumBody += "public enum Technique: String, Sendable, CaseIterable {\n"
        var cases: [(id: String, type: String, name: String, meaning: String)] = []
        var structs = ""
        for row in techniques.rows {
            let id = try row.required("technique", in: techniques)
            let name = try row.required("name", in: techniques)
            let type = name.split(whereSeparator: { $0 == " " || $0 == "-" })
                .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            let meaning = try row.required("meaning", in: techniques)
            cases.append((id, type, name, meaning))
            let parameters = try parameters(of: id, parameterTable, limits: limits)
            let techniqueRules = try rules.rows.filter {
                try $0.required("technique", in: rules).split(separator: " ").contains { $0 == id }
            }
            structs += try methodStruct(
                id: id,
                type: type,
                name: name,
                meaning: meaning,
                row: row,
                table: techniques,
                parameters: parameters,
                rules: techniqueRules.map {
                    (try $0.required("rule", in: rules), try $0.required("message", in: rules))
                }
            )
        }
        for item in cases { enumBody += "    /// \(item.name).\n    case \(item.id)\n" }
        enumBody += "\n    /// The technique's name, e.g. `Cyclic voltammetry`.\n    public var name: String {\n"
        enumBody += "        switch self {\n"
        for item in cases { enumBody += "        case .\(item.id): \(SwiftLiteral.quoted(item.name))\n" }
        enumBody +=
            "        }\n    }\n\n    /// What the technique does, in a sentence.\n    public var meaning: String {\n"
        enumBody += "        switch self {\n"
        for item in cases { enumBody += "        case .\(item.id): \(SwiftLiteral.quoted(item.meaning))\n" }
        enumBody += "        }\n    }\n\n    /// The technique's parameters in the table's order.\n"
        enumBody += "    public var parameters: [MethodParameter] {\n        switch self {\n"
        for item in cases { enumBody += "        case .\(item.id): \(item.type).parameters\n" }
        enumBody += "        }\n    }\n\n    /// The typed method with `values` (by parameter key) over the defaults.\n"
        enumBody += "    func method(_ values: [String: Double]) -> any TechniqueMethod {\n        switch self {\n"
        for item in cases { enumBody += "        case .\(item.id): \(item.type)(values: values)\n" }
        enumBody += "        }\n    }\n}\n"
        return GeneratedFile(
            path: "\(Self.folder)/Technique+Generated.swift",
            specs: [
                "Specs/methodscript/techniques.csv", "Specs/methodscript/technique-parameters.csv",
                "Specs/methodscript/technique-rules.csv", "Specs/methodscript/instrument-limits.csv",
            ],
            body: enumBody + structs
        )
    }

    private func methodStruct(
        id: String,
        type: String,
        name: String,
        meaning: String,
        row: CSVTable.Row,
        table: CSVTable,
        parameters: [Parameter],
        rules: [(rule: String, message: String)]
    ) throws -> String {
        let outputs = try row.required("outputs", in: table).split(separator: " ")
        let loops = try Self.loops(try row.required("loop", in: table), parameters: parameters, row: row, table: table)
        let variables = loops[0].line.split(separator: " ").dropFirst().prefix { !$0.hasPrefix("\\(") }
        guard variables.count == outputs.count else {
            throw SpecError(file: table.path, line: row.line, message: "the loop's variables do not match the outputs")
        }
        let start = row.optional("start_potential") ?? ""
        let potentials = (row.optional("potentials") ?? "").split(separator: ";")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let cycles = row.optional("cycles") ?? ""
        let interval = row.optional("point_interval") ?? ""
        var s = "\n/// \(name): \(meaning) (`Specs/methodscript/techniques.csv`).\n"
        s += "public struct \(type): TechniqueMethod {\n"
        s += "    /// `.\(id)`.\n    public static let technique = Technique.\(id)\n"
        s += "    /// The output variables of its measurement loop, in order.\n"
        s +=
            "    public static let outputs = [\(outputs.map { SwiftLiteral.quoted(String($0)) }.joined(separator: ", "))]\n"
        s += "    /// The script's names for them (`var` and `pck_add`).\n"
        s +=
            "    public static let variables = [\(variables.map { SwiftLiteral.quoted(String($0)) }.joined(separator: ", "))]\n"
        s += "    /// Its parameters in the table's order.\n    public static let parameters: [MethodParameter] = [\n"
        for p in parameters {
            s += "        MethodParameter(\n"
            s += "            key: \(SwiftLiteral.quoted(p.key)), unit: \(SwiftLiteral.quoted(p.unit)),\n"
            s += "            minimum: \(p.minimum), maximum: \(p.maximum), minimumExcluded: \(p.minimumExcluded),\n"
            s += "            defaultValue: \(p.defaultValue), isInteger: \(p.integer),\n"
            s += "            meaning: \(SwiftLiteral.quoted(p.meaning))\n        ),\n"
        }
        s += "    ]\n\n"
        for p in parameters {
            s +=
                "    /// \(p.meaning.prefix(1).uppercased() + p.meaning.dropFirst())\(p.unit.isEmpty ? "" : " (\(p.unit))").\n"
            s += "    public var \(p.swift): Double = \(p.defaultValue)\n"
        }
        s += "\n    /// The table's defaults.\n    public init() {}\n\n"
        s += "    /// `values` (by parameter key, as in `values`) over the defaults; other keys are ignored.\n"
        s += "    public init(values: [String: Double]) {\n"
        for p in parameters {
            s += "        if let value = values[\(SwiftLiteral.quoted(p.key))] { \(p.swift) = value }\n"
        }
        s += "    }\n\n    /// Every parameter by its key.\n    public var values: [String: Double] {\n        [\n"
        for p in parameters { s += "            \(SwiftLiteral.quoted(p.key)): \(p.swift),\n" }
        s += "        ]\n    }\n\n"
        s += "    /// How many points the measurement makes.\n"
        s += "    public var pointCount: Double { \(try row.required("points", in: table)) }\n\n"
        s += "    /// The bandwidth the script asks for (Hz).\n"
        s += "    public var bandwidth: Double { \(try row.required("bandwidth", in: table)) }\n\n"
        s += "    /// Seconds between points, when they come at a steady rate.\n"
        s += "    public var pointInterval: Double? { \(interval.isEmpty ? "nil" : interval) }\n\n"
        s += "    /// The potential held before and at the start of the measurement (nil: the cell stays off).\n"
        s += "    public var startPotential: Double? { \(start.isEmpty ? "nil" : start) }\n\n"
        s += "    /// Every potential the measurement applies at its extremes.\n"
        s += "    public var appliedPotentials: [Double] { [\(potentials.joined(separator: ", "))] }\n\n"
        s += "    /// How many times the measurement loops run in turn.\n"
        s += "    public var repetitions: Int { \(cycles.isEmpty ? "1" : "Int(\(cycles))") }\n\n"
        s += "    /// The measurement loops' lines, run one after the other.\n"
        s += "    public var loopLines: [String] {\n"
        if loops.allSatisfy({ $0.condition == nil }) {
            s += "        [\(loops.map { "\"\($0.line)\"" }.joined(separator: ", "))]\n    }\n\n"
        } else {
            s += "        var lines: [String] = []\n"
            for loop in loops {
                let append = "lines.append(\"\(loop.line)\")"
                s += loop.condition.map { "        if \($0) { \(append) }\n" } ?? "        \(append)\n"
            }
            s += "        return lines\n    }\n\n"
        }
        s += "    /// What the technique's rules (`Specs/methodscript/technique-rules.csv`) refuse.\n"
        s += "    public func ruleViolations() -> [String] {\n        var problems: [String] = []\n"
        for rule in rules {
            s += "        if !(\(rule.rule)) { problems.append(\(SwiftLiteral.quoted(rule.message))) }\n"
        }
        s += "        return problems\n    }\n}\n"
        return s
    }

    /// The `loop` cell's measurement loops, split at `|`, each with the Swift condition of its optional
    /// `[condition]` prefix and its line with `{parameter}` replaced by the value's MethodSCRIPT text.
    private static func loops(
        _ cell: String,
        parameters: [Parameter],
        row: CSVTable.Row,
        table: CSVTable
    ) throws -> [(condition: String?, line: String)] {
        try cell.split(separator: "|").map { segment in
            var text = segment.trimmingCharacters(in: .whitespaces)
            var condition: String?
            if text.hasPrefix("["), let end = text.firstIndex(of: "]") {
                condition = String(text[text.index(after: text.startIndex)..<end])
                text = text[text.index(after: end)...].trimmingCharacters(in: .whitespaces)
            }
            for parameter in parameters {
                // A whole number is written without a prefix; the template adds `i` where the command wants one.
                let format = "MethodNumber.text(\(parameter.swift))"
                text = text.replacingOccurrences(of: "{\(parameter.swift)}", with: "\\(\(format))")
            }
            guard !text.contains("{"), !text.isEmpty else {
                throw SpecError(file: table.path, line: row.line, message: "unknown parameter in loop '\(text)'")
            }
            return (condition, text)
        }
    }

    // MARK: Helpers

    /// `eis_frequency` → `eisFrequency`.
    static func camelCase(_ text: String) -> String {
        let parts = text.split(separator: "_")
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// A number as Swift source, or `nil` for an empty cell.
    static func optionalNumber(_ text: String, _ row: CSVTable.Row, _ table: CSVTable) throws -> String {
        if text.isEmpty { return "nil" }
        guard let value = Double(text), value.isFinite else {
            throw SpecError(file: table.path, line: row.line, message: "'\(text)' is not a number")
        }
        return text.contains(".") || text.contains("e") ? text : "\(text).0"
    }
}
