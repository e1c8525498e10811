import Foundation
import MethodSCRIPT
import Testing

@testable import PicoLink

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct SinkTests {
    static func lsvPackage(_ index: Int, e: Double, i: Double) -> PicoPackage {
        PicoPackage(
            device: "sim",
            run: 1,
            index: index,
            loop: 1,
            scan: nil,
            hostTime: 1_763_787_000.5 + Double(index) * 0.1,
            values: [
                PicoValue(variable: .appliedPotential, value: e),
                PicoValue(variable: .current, value: i, status: .ok, range: MeasurementRange(rawValue: 0x88)),
            ]
        )
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-\(UUID().uuidString)-\(name)").path
    }

    @Test func csvRowsAreOnDiskAfterEachPackageAndTheEndIsMarked() throws {
        let path = Self.temporaryPath("run.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try CSVSink(path: path)
        try sink.begin(RunInfo(device: "sim", run: 1, title: "lsv", startTime: 0))
        try sink.write(Self.lsvPackage(0, e: -0.499905, i: -57.847747e-6))
        let afterOne = try String(contentsOfFile: path, encoding: .utf8)
        #expect(afterOne.split(separator: "\n").count == 3)
        #expect(afterOne.hasPrefix(CSVSink.header))
        let row = "sim,1,0,1,1,1763787000.500000,,,ba,WE current,-5.7847747e-05,A,OK,1 mA (high speed)"
        #expect(afterOne.contains(row))
        try sink.write(Self.lsvPackage(1, e: .nan, i: 1e-6))
        try sink.finish(RunEnd(complete: false, reason: "connection lost", packages: 2))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines[3].contains(",da,Applied potential,NaN,V,"))
        #expect(lines.last == "# end: incomplete (connection lost), 2 packages")
    }

    @Test func jsonLinesAreValidJSONWithNullForNaN() throws {
        let path = Self.temporaryPath("run.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try JSONLinesSink(path: path)
        try sink.begin(RunInfo(device: "sim \"1\"", run: 1, title: "lsv", startTime: 0))
        var package = Self.lsvPackage(0, e: .nan, i: 2.5e-5)
        package.device = "sim \"1\""
        try sink.write(package)
        try sink.finish(RunEnd(complete: true, packages: 1))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4)
        let all = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        // First the start event with what is known of the run (no provenance given: the run info).
        #expect(all[0]["event"] as? String == "start" && all[0]["device"] as? String == "sim \"1\"")
        #expect(all[0]["title"] as? String == "lsv" && all[0]["start_utc"] as? String == "1970-01-01T00:00:00.000Z")
        let objects = Array(all.dropFirst())
        #expect(objects[0]["device"] as? String == "sim \"1\"")
        #expect(
            objects[0]["name"] as? String == "da" && objects[0]["scan"] as? Int == 1 && objects[0]["loop"] as? Int == 1
        )
        #expect(objects[0]["host_time"] is Double && objects[0]["time"] == nil)
        #expect(objects[0]["value"] is NSNull)
        #expect(objects[1]["value"] as? Double == 2.5e-5)
        #expect(objects[1]["range"] as? String == "1 mA (high speed)")
        #expect(objects[2]["event"] as? String == "end")
        #expect(objects[2]["complete"] as? Bool == true)
    }

    @Test func svgPlotIsWellFormedAndMarksAnIncompleteRun() throws {
        let path = Self.temporaryPath("run.svg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = SVGSink(path: path)
        try sink.begin(RunInfo(device: "sim", run: 1, title: "lsv", startTime: 0))
        for index in 0..<21 {
            let e = -0.5 + Double(index) * 0.05
            try sink.write(Self.lsvPackage(index, e: e, i: e / 10_000))
        }
        try sink.finish(RunEnd(complete: false, reason: "aborted", packages: 21))
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(svg.contains("incomplete: aborted"))
        #expect(svg.contains("current vs potential"))
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "SVG must be well-formed XML: \(String(describing: parser.parserError))")
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
    }

    @Test func svgCarriesTheRunsProvenanceAsMetadata() throws {
        let path = Self.temporaryPath("provenance.svg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let provenance = RunProvenance(
            device: "cell-1 <&>",
            deviceRun: 2,
            title: "lsv",
            transport: "kernel",
            firmware: "espico1500",
            serialNumber: "PICO-7",
            scriptName: "LSV.mscr",
            script: "var c",
            scriptSHA256: "ab",
            toolVersion: "hcipico 0.1.0",
            startTime: 0
        )
        let sink = SVGSink(path: path, provenance: provenance)
        try sink.begin(RunInfo(device: "cell-1", run: 2, title: "lsv", startTime: 0))
        try sink.write(Self.lsvPackage(0, e: -0.5, i: 1e-6))
        try sink.finish(RunEnd(complete: true, packages: 1))
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(svg.contains("<metadata>") && svg.contains("serial: PICO-7") && svg.contains("script: LSV.mscr"))
        #expect(svg.contains("device: cell-1 &lt;&amp;&gt;"))
        #expect(XMLParser(data: Data(svg.utf8)).parse())
    }
}
