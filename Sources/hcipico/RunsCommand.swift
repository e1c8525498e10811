import ArgumentParser
import Foundation
import RigJournal

/// `hcipico runs JOURNAL`: the runs a rig recorded, as a table or JSON.
struct RunsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List the runs in a rig's journal: id, device, script, start, duration, packages, state, reason."
    )

    @Argument(help: "The journal (SQLite) a rig wrote.")
    var journal: String

    @OptionGroup var selection: JournalSelection

    @Flag(help: "One JSON object per run, one per line.")
    var json = false

    func run() async throws {
        let opened = try JournalSelection.open(journal)
        let runs: [RunSummary]
        do {
            runs = try opened.runs(selection.filter)
        } catch {
            StandardError.report("\(error)")
            throw ExitStatus.failure.exitCode
        }
        if json {
            for run in runs { print(Self.json(run)) }
            return
        }
        print("   id  device          script            start                duration  packages  state       reason")
        for run in runs {
            let duration = run.duration.map { String(format: "%.1f s", $0) } ?? "-"
            print(
                Self.right(String(run.id), 5) + "  " + Self.left(run.device, 15) + " "
                    + Self.left((run.scriptName as NSString).lastPathComponent, 17) + " "
                    + JournalSelection.text(run.startedAt) + "  " + Self.right(duration, 9) + " "
                    + Self.right(String(run.packages), 9) + "  " + Self.left(run.state, 10) + "  " + (run.reason ?? "")
            )
        }
    }

    static func json(_ run: RunSummary) -> String {
        func quoted(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let fields = [
            "\"id\":\(run.id)", "\"uuid\":\(quoted(run.uuid))", "\"device\":\(quoted(run.device))",
            "\"script\":\(quoted(run.scriptName))", "\"title\":\(quoted(run.title))",
            "\"started_at\":\(run.startedAt)", "\"ended_at\":\(run.endedAt.map { "\($0)" } ?? "null")",
            "\"packages\":\(run.packages)", "\"overflowed\":\(run.overflowed)", "\"state\":\(quoted(run.state))",
            "\"reason\":\(run.reason.map(quoted) ?? "null")",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }

    private static func left(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func right(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
