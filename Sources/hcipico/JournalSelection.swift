import ArgumentParser
import Foundation
import RigJournal

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
            if let text, Self.time(text) == nil {
                throw ValidationError("\(name) '\(text)' is not a time (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS])")
            }
        }
    }

    var filter: RunFilter {
        RunFilter(
            ids: runs.isEmpty ? nil : runs,
            devices: devices.isEmpty ? nil : devices,
            since: since.flatMap(Self.time),
            until: until.flatMap(Self.time)
        )
    }

    /// Seconds since the epoch for a local date or date and time.
    static func time(_ text: String) -> Double? {
        for pattern in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = pattern
            if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        }
        return nil
    }

    /// `2026-11-25 14:03:07`, local time.
    static func text(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
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
