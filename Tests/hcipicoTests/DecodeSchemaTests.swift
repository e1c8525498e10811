import BLETesting
import Foundation
import Testing

/// `decode --csv` and `--jsonl` write what `connect` writes: the per-point table and JSON Lines with a
/// start event, the same column and field names (a transcript has no host time and no script names).
@Suite struct DecodeSchemaTests {
    static let transcript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/transcripts/lsv_10k.txt").path

    @Test func csvIsThePerPointTable() throws {
        let run = try #require(runProgram(try builtHCIPico(), ["decode", Self.transcript, "--csv"]))
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("run,scan,loop,package,host_time,da [V],ba [A],ba status,ba range [A]"), "\(lines)")
        let rows = lines.filter { $0.hasPrefix("1,") }
        #expect(rows.count == 21)
        #expect(rows.first == "1,1,1,0,,-0.499905,-5e-05,0,0.001")
        #expect(lines.last == "# end: complete, 21 packages")
    }

    @Test func jsonLinesUseConnectsNames() throws {
        let run = try #require(runProgram(try builtHCIPico(), ["decode", Self.transcript, "--jsonl"]))
        #expect(run.status == 0, "\(run.stderr)")
        let objects = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.first?["event"] as? String == "start")
        let value = try #require(objects.dropFirst().first)
        #expect(value["host_time"] is NSNull && value["name"] as? String == "da" && value["scan"] as? Int == 1)
        #expect(value["value"] as? Double == -0.499905)
        #expect(objects.last?["event"] as? String == "end" && objects.last?["packages"] as? Int == 21)
    }
}
