import ArgumentParser
import MethodSCRIPT
import RunResults

/// `hcipico methods [NAME] [--set KEY=VALUE …] [--script]`: the techniques, one technique's parameters, or
/// the MethodSCRIPT a method renders (to audit it, or to edit it into a script of one's own).
struct MethodsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "methods",
        abstract: "List the techniques, a technique's parameters, or the script a method renders.",
        discussion: """
            Without NAME: every technique. With NAME: its parameters with units, defaults and bounds (what \
            --set and a method file take). With --script: the MethodSCRIPT the method sends, after the same \
            checks as connect. Exit status: 0, or 64 for an unknown technique or a value out of bounds.
            """
    )

    @Argument(help: "A technique (lsv, cv, dpv, swv, npv, ca, ocp, eis).")
    var technique: Technique?

    @Option(name: .customLong("set"), help: "A parameter as KEY=VALUE in SI units (repeatable).")
    var settings: [String] = []

    @Flag(help: "Print the MethodSCRIPT the method renders.")
    var script = false

    func validate() throws {
        if technique == nil, script || !settings.isEmpty {
            throw ValidationError("--set and --script need a technique")
        }
    }

    func run() throws {
        guard let technique else { return print(Self.techniqueTable()) }
        guard script else { return print(Self.parameterTable(technique)) }
        let options = try MethodOptions.parse(
            ["--technique", technique.rawValue] + settings.flatMap { ["--set", $0] }
        )
        guard let method = try options.resolvedMethod() else { return }
        print(try method.script(), terminator: "")
    }

    static func techniqueTable() -> String {
        let rows = Technique.allCases.map { technique -> [String] in
            let points = (try? Method(technique: technique)).map { "\(Int($0.typed.pointCount))" } ?? ""
            return [technique.rawValue, technique.name, points, technique.meaning]
        }
        return TextColumn.table(header: ["technique", "name", "points", "what it does"], rows: rows)
            + "\n'hcipico methods NAME' lists a technique's parameters."
    }

    static func parameterTable(_ technique: Technique) -> String {
        let rows = technique.parameters.map { parameter in
            [
                parameter.key, parameter.unit, MethodNumber.plain(parameter.defaultValue), parameter.bounds,
                parameter.meaning,
            ]
        }
        return "\(technique.rawValue): \(technique.name): \(technique.meaning)\n\n"
            + TextColumn.table(header: ["parameter", "unit", "default", "bounds", "meaning"], rows: rows)
    }
}
