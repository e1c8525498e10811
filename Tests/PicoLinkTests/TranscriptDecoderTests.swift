import Foundation
import MethodSCRIPT
import RunResults
import SystemPackage
import Testing

/// `TranscriptDecoder`: a transcript to the table people read, with the loop and scan numbers every
/// output counts from 1, and every problem reported with its place while decoding goes on.
@Suite struct TranscriptDecoderTests {
    /// Decodes `text` as a file, returning what the table emitted and what was reported.
    static func decode(_ text: String) throws -> (table: String, reports: [String], decoder: TranscriptDecoder) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("transcript-\(UUID()).txt").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var table = ""
        var reports: [String] = []
        let decoder = try TranscriptDecoder(
            format: .table,
            family: .pico,
            name: path,
            emit: { table += $0 },
            report: { reports.append($0) }
        )
        let descriptor = try FileDescriptor.open(FilePath(path), .readOnly)
        defer { try? descriptor.close() }
        try decoder.decode(descriptor)
        return (table, reports.map { $0.replacingOccurrences(of: path, with: "FILE") }, decoder)
    }

    @Test func loopsAndScansAreCountedFromOneAndValuesGetTheirRanges() throws {
        let point = "Pda7F85F3Fu;ba48D503Dp,10,288"
        let transcript = "e\nM0000\nC0000\n\(point)\n-\nC0001\n\(point)\n-\n*\n\n"
        let (table, reports, decoder) = try Self.decode(transcript)
        #expect(reports.isEmpty)
        #expect(decoder.malformedLines == 0 && decoder.deviceErrors == 0)
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("   line  code  ") == true)
        #expect(lines.contains("      2  # measurement loop 1 starts"))
        #expect(lines.contains("      3  # scan 1 starts"))
        #expect(lines.contains("      6  # scan 2 starts"), "the second scan is scan 2, not the marker's digits")
        let rows = lines.filter { $0.contains("  da    ") }
        #expect(rows.count == 2)
        #expect(rows.first?.hasPrefix("      4  da    ") == true)
        #expect(rows.first?.contains("-0.499905  V") == true)
        #expect(lines.contains { $0.hasPrefix("      4  ba") && $0.hasSuffix("1 mA (high speed)") })
    }

    @Test func aMalformedLineAndADeviceErrorAreReportedWithTheirPlaceAndDecodingGoesOn() throws {
        let transcript = "e\nM0000\nPda7F85G3Fu\n!2035: Line 3, Col 1\nPda7F85F3Fu\n*\n\n"
        let (table, reports, decoder) = try Self.decode(transcript)
        #expect(decoder.malformedLines == 1 && decoder.deviceErrors == 1)
        #expect(reports.count == 2)
        #expect(reports.first?.hasPrefix("FILE:3:") == true, "\(reports)")
        #expect(reports.last?.hasPrefix("FILE:4: device error") == true, "\(reports)")
        #expect(reports.last?.contains("(script line 3, column 1)") == true, "\(reports)")
        #expect(table.contains("      5  da    "), "the line after the problems is still decoded")
    }

    @Test func controlBytesInDeviceTextAreEscaped() throws {
        let (table, _, _) = try Self.decode("T\u{1B}[2J\u{07}\n")
        #expect(!table.contains("\u{1B}") && !table.contains("\u{07}"))
        #expect(table.contains("text: "), "\(table)")
    }
}
