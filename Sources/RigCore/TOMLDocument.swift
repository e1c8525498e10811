import Foundation
import TOMLKit

/// A TOML file read for a rig config or a method file: its text (for `TOMLKeyLocator`) and its table, or
/// the problem that stopped it, located.
struct TOMLDocument {
    let text: String
    let table: TOMLTable

    /// Reads `path`; `what` names the file in the message when it cannot be read (`the config`).
    static func read(_ path: String, what: String) throws(ConfigProblems) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigProblems(problems: [
                ConfigProblem(
                    file: path,
                    line: nil,
                    key: "",
                    message: "cannot read \(what): \(RigConfigParser.reason(error))"
                )
            ])
        }
    }

    /// Parses `text`, named `file` in messages: a syntax error is told at its line and column.
    init(text: String, file: String) throws(ConfigProblems) {
        self.text = text
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigProblems(problems: [
                ConfigProblem(
                    file: file,
                    line: error.source.begin.line,
                    key: "",
                    message: "column \(error.source.begin.column): \(error.description)"
                )
            ])
        } catch {
            throw ConfigProblems(problems: [ConfigProblem(file: file, line: nil, key: "", message: "\(error)")])
        }
    }

    /// A reader for located problems in this document.
    func reader(file: String) -> ConfigReader { ConfigReader(file: file, locator: TOMLKeyLocator(text: text)) }
}
