import ArgumentParser
import Foundation
import PicoLink
import RigJournal
import RunResults

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
                TextColumn.pad(String(run.id), 5) + "  " + TextColumn.pad(run.device, 15, left: true) + " "
                    + TextColumn.pad((run.scriptName as NSString).lastPathComponent, 17, left: true) + " "
                    + JournalSelection.text(run.startedAt) + "  " + TextColumn.pad(duration, 9) + " "
                    + TextColumn.pad(String(run.packages), 9) + "  " + TextColumn.pad(run.state, 10, left: true) + "  "
                    + [run.reason, run.prunedAt.map { _ in "(packages pruned after forwarding)" }].compactMap { $0 }
                    .joined(separator: " ")
            )
        }
    }

    static func json(_ run: RunSummary) -> String {
        let quoted = JSONText.quoted
        let fields = [
            "\"id\":\(run.id)", "\"uuid\":\(quoted(run.uuid))", "\"device\":\(quoted(run.device))",
            "\"script\":\(quoted(run.scriptName))", "\"title\":\(quoted(run.title))",
            "\"started_at\":\(run.startedAt)", "\"ended_at\":\(run.endedAt.map { "\($0)" } ?? "null")",
            "\"packages\":\(run.packages)", "\"overflowed\":\(run.overflowed)", "\"state\":\(quoted(run.state))",
            "\"reason\":\(run.reason.map(quoted) ?? "null")", "\"rssi\":\(run.rssi.map { "\($0)" } ?? "null")",
            "\"pruned_at\":\(run.prunedAt.map { "\($0)" } ?? "null")",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }
}
