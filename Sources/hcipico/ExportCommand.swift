import ArgumentParser
import Foundation
import PicoLink
import RigJournal
import RunResults
import Terminal

/// `hcipico export JOURNAL --out DIR`: the selected runs as a per-point CSV table, JSON Lines, a
/// PSTrace-style CSV and an SVG plot, each with the run's provenance from the journal.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write runs from a rig's journal as CSV tables, JSON Lines and SVG plots into a folder.",
        discussion: """
            Each run becomes four files in --out: DEVICE-runID.csv, one row per data package with a \
            column per script variable (p [V], c [A], c status, c range [A]) after # lines with the \
            run's provenance (tool, device, address, firmware, serial, script and its SHA-256, start \
            UTC, link); .jsonl, one JSON object per value; .pstrace.csv, as PSTrace exports (UTF-16, \
            six header lines, an (E, I) column pair per scan, or the impedance block); and .svg, the \
            plot. Existing files are left alone unless --overwrite. Runs still running are exported \
            as far as they are committed.
            """
    )

    @Argument(help: "The journal (SQLite) a rig wrote.")
    var journal: String

    @OptionGroup var selection: JournalSelection

    @Option(help: "The folder to write into (made when it does not exist).")
    var out: String

    @Flag(help: "Replace files that exist.")
    var overwrite = false

    func run() async throws {
        do {
            try OutputFolder.prepare(out)
        } catch {
            StandardError.report(error.description)
            throw ExitStatus.badInput.exitCode
        }
        let opened = try JournalSelection.open(journal)
        do {
            let runs = try opened.runs(selection.filter)
            if runs.isEmpty {
                StandardError.report("no run matches in \(journal)")
                throw ExitStatus.badInput.exitCode
            }
            // Every file is checked before any is made: an export that would replace one writes nothing.
            if !overwrite {
                let existing = RunExport.existingFiles(of: runs, in: out)
                if !existing.isEmpty {
                    for path in existing { StandardError.report("\(path): exists (--overwrite replaces it)") }
                    StandardError.report("nothing was written")
                    throw ExitStatus.badInput.exitCode
                }
            }
            for run in runs {
                let base = RunExport.base(of: run, in: out)
                if let pruned = run.prunedAt {
                    StandardError.report(
                        "run \(run.id) (\(run.device)): its packages were pruned from the journal on \(UTCTime.iso8601(pruned)) after being forwarded to PostgreSQL; nothing written"
                    )
                    continue
                }
                let count = try RunExport.write(run, from: opened, base: base, overwrite: overwrite)
                print(
                    "\(base)\(RunExport.suffixes.joined(separator: ", ")): run \(run.id) (\(run.device), \(count) packages, \(run.state))"
                )
            }
        } catch let exit as ExitCode {
            throw exit
        } catch let error as SinkError {
            StandardError.report("\(error)")
            throw ExitStatus.writeFailed.exitCode
        } catch {
            StandardError.report("\(error)")
            throw ExitStatus.failure.exitCode
        }
    }
}
