import Foundation
import MethodSCRIPT
import Testing

@testable import PicoLink

@Suite struct PointCSVSinkTests {
    static let provenance = RunProvenance(
        runID: UUID(uuidString: "6F1D2C3B-4A59-4E6F-8A7B-9C0D1E2F3A4B")!,
        device: "cell-1",
        deviceRun: 3,
        title: "swv",
        address: "C0:FF:EE:00:00:01",
        addressType: "public",
        transport: "kernel:hci0",
        firmware: "espico1500#Nov 21 2025",
        serialNumber: "PICO-0042",
        scriptName: "SWV.mscr",
        script: "e\nvar p\n",
        scriptSHA256: String(repeating: "ab", count: 32),
        link: "MTU 247",
        toolVersion: "hcipico 0.1.0",
        startTime: 1_763_787_000.25
    )

    /// An SWV package as the session hands it over: `p`, `c`, `f`, `r` named from the script.
    static func swv(_ index: Int, scan: Int? = nil, values: [Double]) -> PicoPackage {
        let range = MeasurementRange(rawValue: 0x86)
        return PicoPackage(
            device: "cell-1",
            run: 3,
            index: index,
            loop: 1,
            scan: scan,
            hostTime: 1_763_787_000.5 + Double(index),
            values: [
                PicoValue(variable: .appliedPotential, name: "p", value: values[0]),
                PicoValue(variable: .current, name: "c", value: values[1], status: .ok, range: range),
                PicoValue(variable: .current, name: "f", value: values[2], status: .ok, range: range),
                PicoValue(variable: .current, name: "r", value: values[3], status: .ok, range: range),
            ]
        )
    }

    static func lines(_ path: String) throws -> [Substring] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast()
    }

    @Test func oneRowPerPackageNamedAfterTheScriptWithProvenanceAndEnd() throws {
        let path = SinkTests.temporaryPath("swv.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try PointCSVSink(path: path, provenance: Self.provenance)
        try sink.begin(RunInfo(device: "cell-1", run: 3, title: "swv", startTime: 1_763_787_000.25))
        try sink.write(Self.swv(0, values: [-0.4, -5.7847747e-05, 0.03, 63095.734e-9]))
        try sink.write(Self.swv(1, scan: 2, values: [-0.395, .nan, 2e-6, -1e-6]))
        try sink.finish(RunEnd(complete: true, packages: 2))
        let lines = try Self.lines(path)
        #expect(
            Array(lines.prefix(13)) == [
                "# tool: hcipico 0.1.0", "# device: cell-1", "# address: C0:FF:EE:00:00:01 (public)",
                "# transport: kernel:hci0", "# firmware: espico1500#Nov 21 2025", "# serial: PICO-0042",
                "# script: SWV.mscr", "# script_sha256: \(String(repeating: "ab", count: 32))", "# run: 3",
                "# run_id: 6f1d2c3b-4a59-4e6f-8a7b-9c0d1e2f3a4b", "# title: swv",
                "# start_utc: 2025-11-22T04:50:00.250Z",
                "# link: MTU 247",
            ]
        )
        #expect(
            lines[13]
                == "run,scan,loop,package,host_time,p [V],c [A],c status,c range [A],f [A],f status,f range [A],"
                + "r [A],r status,r range [A]"
        )
        #expect(
            lines[14] == "3,1,1,0,1763787000.500000,-0.4,-5.7847747e-05,0,0.0001,0.03,0,0.0001,6.3095734e-05,0,0.0001"
        )
        #expect(lines[15] == "3,2,1,1,1763787001.500000,-0.395,NaN,0,0.0001,2e-06,0,0.0001,-1e-06,0,0.0001")
        #expect(lines[16] == "# end: complete, 2 packages")
        #expect(lines.count == 17)
    }

    @Test func withoutProvenanceTheRunInfoIsTheHeaderAndCodesNameUnnamedValues() throws {
        let path = SinkTests.temporaryPath("plain.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try PointCSVSink(path: path)
        try sink.begin(RunInfo(device: "sim", run: 1, title: "lsv", startTime: 0))
        try sink.write(SinkTests.lsvPackage(0, e: -0.5, i: 1e-6))
        try sink.finish(RunEnd(complete: false, reason: "connection lost", packages: 1))
        let lines = try Self.lines(path)
        #expect(
            lines == [
                "# device: sim", "# run: 1", "# title: lsv", "# start_utc: 1970-01-01T00:00:00.000Z",
                "run,scan,loop,package,host_time,da [V],ba [A],ba status,ba range [A]",
                "1,1,1,0,1763787000.500000,-0.5,1e-06,0,0.001", "# end: incomplete (connection lost), 1 packages",
            ]
        )
    }

    @Test func aPackageOfAnotherLayoutIsNeverWrittenUnderTheWrongNames() throws {
        let path = SinkTests.temporaryPath("layouts.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try PointCSVSink(path: path)
        try sink.begin(RunInfo(device: "sim", run: 1, title: "mixed", startTime: 0))
        try sink.write(Self.swv(0, values: [0.1, 1e-6, 2e-6, 3e-6]))
        // Only `p` and `f`: both have columns, the others stay empty.
        var subset = Self.swv(1, values: [0.2, 4e-6, 5e-6, 6e-6])
        subset.values = [subset.values[0], subset.values[2]]
        try sink.write(subset)
        // Another block of the script: `t` (device time) and `e`: a new header.
        var other = Self.swv(2, values: [0, 0, 0, 0])
        other.values = [
            PicoValue(variable: .time, name: "t", value: 0.25),
            PicoValue(variable: .weVsRE, name: "e", value: 0.125),
        ]
        try sink.write(other)
        try sink.write(Self.swv(3, values: [0.3, 7e-6, 8e-6, 9e-6]))
        try sink.finish(RunEnd(complete: true, packages: 4))
        let lines = Array(try Self.lines(path).dropFirst(4))
        #expect(lines[1] == "3,1,1,0,1763787000.500000,0.1,1e-06,0,0.0001,2e-06,0,0.0001,3e-06,0,0.0001")
        #expect(lines[2] == "3,1,1,1,1763787001.500000,0.2,,,,5e-06,0,0.0001,,,")
        #expect(lines[3] == "# columns change at package 2")
        #expect(lines[4] == "run,scan,loop,package,host_time,device_time,t [s],e [V]")
        #expect(lines[5] == "3,1,1,2,1763787002.500000,0.25,0.25,0.125")
        #expect(lines[6] == "# columns change at package 3")
        #expect(lines[7] == lines[0])
        #expect(lines[8].hasPrefix("3,1,1,3,"))
        // Every data row has as many fields as the header above it.
        var width = 0
        for line in lines where !line.hasPrefix("#") {
            let count = line.split(separator: ",", omittingEmptySubsequences: false).count
            if line.hasPrefix("run,") { width = count } else { #expect(count == width, "\(line)") }
        }
    }

    @Test func unnamedValuesOfOneTypeKeepTheirOrder() throws {
        var package = Self.swv(0, values: [0.1, 1e-6, 2e-6, 3e-6])
        for index in package.values.indices { package.values[index].name = nil }
        let layout = PointLayout(package)
        #expect(layout.slots.map(\.occurrence) == [0, 0, 1, 2])
        #expect(layout.placement(of: package) == [5, 6, 9, 12])
        var fewer = package
        fewer.values.removeLast()
        #expect(layout.placement(of: fewer) == [5, 6, 9])
    }

    @Test func valuesRoundTripExactly() throws {
        let path = SinkTests.temporaryPath("roundtrip.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try PointCSVSink(path: path)
        try sink.begin(RunInfo(device: "sim", run: 1, title: "swv", startTime: 0))
        var random = SystemRandomNumberGenerator()
        var written: [[Double]] = []
        for index in 0..<200 {
            let values = (0..<4).map { _ in
                Double(
                    "\(Int.random(in: -134_217_728...134_217_727, using: &random))e\(Int.random(in: -18...0, using: &random))"
                )!
            }
            written.append(values)
            try sink.write(Self.swv(index, values: values))
        }
        try sink.finish(RunEnd(complete: true, packages: 200))
        let rows = try Self.lines(path).filter { !$0.hasPrefix("#") && !$0.hasPrefix("run,") }
        #expect(rows.count == 200)
        for (row, values) in zip(rows, written) {
            let fields = row.split(separator: ",", omittingEmptySubsequences: false)
            let read = [fields[5], fields[6], fields[9], fields[12]].map { Double($0)! }
            #expect(read.map(\.bitPattern) == values.map(\.bitPattern))
        }
    }
}
