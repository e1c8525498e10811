import Foundation
import PicoAnalysis
import RigJournal
import Testing

/// What `hcipico runs`, `analyze` and `export` make of a journal's runs, without the program.
@Suite struct JournalListingTests {
    static let lsv = "e\nvar p\nvar c\nmeas_loop_lsv p c 0 500m 5m 50m\nendloop\n"

    @Test func aRunIsOneRowUnderTheHeaderAndOneJSONObject() async throws {
        let path = JournalTests.path()
        defer { JournalTests.remove(path) }
        _ = try await JournalAnalysisTests.recordSweep(path, script: Self.lsv)
        let run = try #require(try Journal.openForReading(path: path).runs().last)
        let row = run.listingRow
        #expect(row.hasPrefix(String(repeating: " ", count: 5 - String(run.id).count) + "\(run.id)  pico-1 "))
        #expect(row.contains(RunFilter.localTime(run.startedAt)))
        #expect(row.contains("  101  ") && row.contains("complete"))
        #expect(RunSummary.listingHeader.hasPrefix("   id  device"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.jsonLine.utf8)) as? [String: Any])
        #expect(object["id"] as? Int64 == run.id && object["packages"] as? Int == 101)
        #expect(object["reason"] is NSNull && object["pruned_at"] is NSNull)
        #expect(run.jsonLine.hasPrefix("{\"id\":"))
    }

    @Test func analysesAreNamedByDeviceRunAndIdInTablesAndJSON() async throws {
        let path = JournalTests.path()
        defer { JournalTests.remove(path) }
        let id = try await JournalAnalysisTests.recordSweep(path, script: Self.lsv)
        let journal = try Journal.openForReading(path: path)
        let runs = try journal.runs()
        let fresh = try JournalAnalyses(runs: runs, in: journal, stored: false, settings: AnalysisSettings())
        #expect(fresh.text.hasPrefix("pico-1 run \(runs[0].deviceRun) (id \(id)), current c: 1 peak"))
        #expect(fresh.failures.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(fresh.json.utf8)) as? [String: Any])
        #expect((object["runs"] as? [Any])?.count == 1)
        let stored = try JournalAnalyses(runs: runs, in: journal, stored: true, settings: AnalysisSettings())
        #expect(stored.text == "pico-1 run \(runs[0].deviceRun) (id \(id)): not analysed yet")
    }

    @Test func localTimesAreReadInEveryFormTheOptionsTake() {
        let day = RunFilter.time(parsing: "2026-11-25")
        #expect(day != nil)
        #expect(RunFilter.time(parsing: "2026-11-25T14:03") == day.map { $0 + 14 * 3600 + 3 * 60 })
        #expect(RunFilter.time(parsing: "2026-11-25T14:03:07") == RunFilter.time(parsing: "2026-11-25 14:03:07"))
        #expect(RunFilter.time(parsing: "25/11/2026") == nil && RunFilter.time(parsing: "") == nil)
        #expect(RunFilter.localTime(RunFilter.time(parsing: "2026-11-25T14:03:07") ?? 0) == "2026-11-25 14:03:07")
    }

    @Test func anExportNamesItsFilesByDeviceAndRunAndFindsTheOnesItWouldReplace() async throws {
        let path = JournalTests.path()
        defer { JournalTests.remove(path) }
        _ = try await JournalAnalysisTests.recordSweep(path, script: Self.lsv)
        let journal = try Journal.openForReading(path: path)
        let run = try #require(try journal.runs().last)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(RunExport.name(of: run) == "pico-1-run\(run.id)")
        #expect(RunExport.existingFiles(of: [run], in: folder).isEmpty)
        _ = FileManager.default.createFile(atPath: RunExport.base(of: run, in: folder) + ".svg", contents: Data())
        #expect(RunExport.existingFiles(of: [run], in: folder) == ["\(folder)/pico-1-run\(run.id).svg"])
    }
}
