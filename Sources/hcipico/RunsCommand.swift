import ArgumentParser
import RigJournal
import Terminal

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
            for run in runs { print(run.jsonLine) }
            return
        }
        print(RunSummary.listingHeader)
        for run in runs { print(run.listingRow) }
    }
}
