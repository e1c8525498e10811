import ArgumentParser
import Foundation
import MethodSCRIPT
import RigCore
import Terminal

/// `hcipico check FILE…`: the MethodSCRIPT checker for any script (`.mscr`), and the method checks for
/// method files (`.toml`), before anything is sent anywhere.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check MethodSCRIPT files (and method files) as connect, console and the rig do before sending.",
        discussion: """
            A script is checked against the command table and the EmStat Pico's limits: unknown commands, \
            wrong argument counts or types, undeclared variables, unbalanced loops, numbers out of bounds; \
            every problem is told as FILE:LINE:COLUMN with the device's error code. A .toml file is read \
            as a method (technique and parameters). Exit status: 0 when every file passes, 64 otherwise.
            """
    )

    @Argument(help: "Scripts (.mscr) or method files (.toml).")
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            if file.hasSuffix(".toml") {
                do {
                    let method = try MethodFile.load(path: file)
                    print("\(file): ok (\(method.technique.rawValue), \(Int(method.typed.pointCount)) points)")
                } catch {
                    StandardError.report(error.description)
                    failed = true
                }
                continue
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                StandardError.report("\(file): cannot be read")
                failed = true
                continue
            }
            let problems = ScriptChecker.check(String(decoding: data, as: UTF8.self))
            for problem in problems {
                StandardError.report(
                    "\(file):\(problem.line):\(problem.column): \(problem.message) (!\(problem.code.hex))"
                )
            }
            if problems.isEmpty { print("\(file): ok") } else { failed = true }
        }
        if failed { throw ExitStatus.badInput.exitCode }
    }
}
