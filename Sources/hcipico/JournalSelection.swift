import ArgumentParser
import Foundation
import RigJournal
import Terminal

/// `--run`, `--device`, `--since` and `--until`, shared by `runs` and `export`.
struct JournalSelection: ParsableArguments {
    @Option(name: .customLong("run"), help: "Only this run (its id in `hcipico runs`); repeatable.")
    var runs: [Int64] = []

    @Option(name: .customLong("device"), help: "Only this device's runs; repeatable.")
    var devices: [String] = []

    @Option(help: "Only runs that started at or after this time (YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS], local).")
    var since: String?

    @Option(help: "Only runs that started before this time (same forms as --since).")
    var until: String?

    func validate() throws {
        for (name, text) in [("--since", since), ("--until", until)] {
            if let text, RunFilter.time(parsing: text) == nil {
                throw ValidationError("\(name) '\(text)' is not a time (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS])")
            }
        }
    }

    var filter: RunFilter {
        RunFilter(
            ids: runs.isEmpty ? nil : runs,
            devices: devices.isEmpty ? nil : devices,
            since: since.flatMap(RunFilter.time(parsing:)),
            until: until.flatMap(RunFilter.time(parsing:))
        )
    }

    /// Opens the journal to read; a missing or foreign file is exit 64.
    static func open(_ path: String) throws -> Journal {
        do {
            return try Journal.openForReading(path: path)
        } catch {
            StandardError.report("\(error)")
            throw ExitStatus.badInput.exitCode
        }
    }
}
