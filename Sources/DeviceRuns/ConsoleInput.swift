import Foundation
public import MethodSCRIPT

/// A line typed at the console, as the console reads it. At the start of a script a line may be one
/// of the console's own commands (`help`, `:quit`, `:save FILE`, `:load FILE`, `:method FILE`,
/// `:run NAME [KEY=VALUE …]`); any other line is MethodSCRIPT, and an empty line runs the lines so far.
public enum ConsoleInput: Sendable, Equatable {
    /// `help` or `:help`: the console's help.
    case help
    /// `:quit`: leave.
    case quit
    /// `:save FILE`: write the last run (the path may be empty: saving then says what is missing).
    case save(path: String)
    /// `:load FILE`: run the script in the file.
    case load(path: String)
    /// `:method FILE`: run the method in a TOML file.
    case methodFile(path: String)
    /// `:run NAME KEY=VALUE …`: run a technique with these settings (`Method.values(settings:)`).
    case method(Technique, settings: [String])
    /// A line of the script being typed.
    case scriptLine(String)
    /// An empty line: run the lines so far.
    case run
    /// A console command given wrongly, and what is wrong.
    case misuse(String)

    /// Reads `line`; `inScript` when lines of a script have been typed already, which makes every line
    /// but an empty one part of the script.
    public init(_ line: String, inScript: Bool) {
        let command = line.trimmingCharacters(in: .whitespaces)
        guard !inScript, command.hasPrefix(":") || command == "help" else {
            self = line.isEmpty ? .run : .scriptLine(line)
            return
        }
        let words = command.split(separator: " ").map(String.init)
        let argument = String(command.drop { $0 != " " }).trimmingCharacters(in: .whitespaces)
        switch words.first {
        case "help" where words.count == 1, ":help" where words.count == 1: self = .help
        case ":quit" where words.count == 1: self = .quit
        case ":save": self = .save(path: argument)
        case ":load": self = argument.isEmpty ? .misuse(":load needs a file name") : .load(path: argument)
        case ":method": self = words.count == 2 ? .methodFile(path: words[1]) : .misuse(":method needs one file name")
        case ":run":
            guard words.count >= 2 else {
                self = .misuse(":run needs a technique ('hcipico methods' lists them)")
                return
            }
            guard let technique = Technique(named: words[1]) else {
                self = .misuse(":run: \(MethodError.unknownTechnique(words[1]))")
                return
            }
            self = .method(technique, settings: Array(words.dropFirst(2)))
        default: self = .scriptLine(line)
        }
    }
}
