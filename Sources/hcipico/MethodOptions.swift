import ArgumentParser
import Foundation
import MethodSCRIPT
import PicoAnalysis
import PicoLink
import RigCore
import Terminal

/// What to run, for `connect`: a script file, a technique with its parameters, or a method file.
struct MethodOptions: ParsableArguments {
    @Option(help: "A MethodSCRIPT file to run (checked before anything connects: 'hcipico check FILE').")
    var script: String?

    @Option(
        help: """
            Run a method of this technique (\(Technique.allCases.map(\.rawValue).joined(separator: ", "))), \
            its parameters' defaults unless --set ('hcipico methods NAME' lists them).
            """
    )
    var technique: Technique?

    @Option(
        name: .customLong("set"),
        help: "A parameter of --technique as KEY=VALUE in SI units (V, s, V/s, Hz, A); repeat it: --set scan_rate=0.05."
    )
    var settings: [String] = []

    @Option(help: "Run the method in this TOML file: technique = \"cv\" and its parameters (see README).")
    var method: String?

    @Flag(help: "Send --script even where the MethodSCRIPT checker refuses it (firmware newer than its table).")
    var unchecked = false

    /// Whether anything says what to run.
    var isGiven: Bool { script != nil || technique != nil || method != nil }

    /// The files read, which no output may name (`OutputCheck`).
    var inputs: [OutputCheck.Named] {
        [("--script", script), ("--method", method)].compactMap { name, path in path.map { OutputCheck.Named(name, $0) }
        }
    }

    func validate() throws {
        if [script != nil, technique != nil, method != nil].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --script, --technique and --method")
        }
        if !settings.isEmpty, technique == nil { throw ValidationError("--set goes with --technique") }
        if unchecked, script == nil { throw ValidationError("--unchecked goes with --script") }
    }

    /// How the run is analysed: a method file's `[analysis]` table (nil when it turns the analysis off), else
    /// the defaults.
    func resolvedAnalysis() throws -> AnalysisSettings? {
        guard let path = method else { return AnalysisSettings() }
        do {
            return try MethodFile.loadWithAnalysis(path: path).analysis
        } catch {
            StandardError.report(error.description)
            throw ExitStatus.badInput.exitCode
        }
    }

    /// The method of `--technique` and `--set`, or of `--method`; nil for a script. Problems are told
    /// on standard error, each naming its parameter, and are exit 64.
    func resolvedMethod() throws -> Method? {
        if let path = method {
            do {
                return try MethodFile.load(path: path)
            } catch {
                StandardError.report(error.description)
                throw ExitStatus.badInput.exitCode
            }
        }
        guard let technique else { return nil }
        do {
            let method = try Method(technique: technique, values: try Method.values(settings: settings))
            try method.validate()
            return method
        } catch .malformedSetting(let setting) {
            StandardError.report("--set \(MethodError.malformedSetting(setting))")
            throw ExitStatus.badInput.exitCode
        } catch {
            let lines = error.description.split(separator: "\n").map { "--technique \(technique.rawValue): \($0)" }
            StandardError.report(lines.joined(separator: "\n"))
            throw ExitStatus.badInput.exitCode
        }
    }
}

extension MethodOptions {
    /// The script the options say to run, checked (problems reported, exit 64); nil when none is given.
    func scriptText() throws -> (text: String, title: String)? {
        if let script {
            guard let data = FileManager.default.contents(atPath: script) else {
                StandardError.report("--script \(script): cannot be read")
                throw ExitStatus.badInput.exitCode
            }
            return (String(decoding: data, as: UTF8.self), URL(fileURLWithPath: script).lastPathComponent)
        }
        guard let method = try resolvedMethod() else { return nil }
        return (try method.script(), method.technique.rawValue)
    }

    /// An argument parser's error in one line (an unknown technique, say).
    static func oneLine(_ error: any Error) -> String {
        message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
    }
}

extension Technique: ExpressibleByArgument {
    /// `--technique CV` is `cv`.
    public init?(argument: String) { self.init(named: argument) }
}
