import BLETesting
import Foundation
import MethodSCRIPT
import Testing

@testable import PicoLink

@Suite struct PSTraceSinkTests {
    /// Runs `packages` through a sink into a new file; returns its bytes.
    static func export(
        _ packages: [PicoPackage],
        title: String = "cv",
        provenance: RunProvenance? = nil,
        end: RunEnd? = nil
    ) throws -> [UInt8] {
        let path = SinkTests.temporaryPath("run.pstrace.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try PSTraceSink(path: path, provenance: provenance)
        try sink.begin(RunInfo(device: "sim", run: 1, title: title, startTime: 1_763_787_000))
        for package in packages { try sink.write(package) }
        try sink.finish(end ?? RunEnd(complete: true, packages: packages.count))
        try sink.sync()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The file's text after its byte order mark, split at CRLF.
    static func lines(_ bytes: [UInt8]) throws -> [String] { try #require(PSTraceText.lines(bytes)) }

    static func package(_ index: Int, scan: Int?, values: [PicoValue]) -> PicoPackage {
        PicoPackage(
            device: "sim",
            run: 1,
            index: index,
            loop: 1,
            scan: scan,
            hostTime: 1_763_787_001 + Double(index),
            values: values
        )
    }

    @Test func voltammetryIsOneColumnPairPerScanInMicroamperes() throws {
        var packages: [PicoPackage] = []
        let points: [(scan: Int, e: Double, i: Double)] = [
            (0, -0.5, -5.7847747e-05), (0, -0.49, 0.03e-6), (0, -0.48, -5e-11),
            (1, -0.5, 1e-9), (1, -0.49, .nan),
        ]
        for (index, point) in points.enumerated() {
            packages.append(
                Self.package(
                    index,
                    scan: point.scan + 1,
                    values: [
                        PicoValue(variable: .appliedPotential, name: "p", value: point.e),
                        PicoValue(variable: .current, name: "c", value: point.i, status: .ok),
                    ]
                )
            )
        }
        let lines = try Self.lines(try Self.export(packages, provenance: PointCSVSinkTests.provenance))
        #expect(lines.count == 6 + 3)
        #expect(lines[0] == "Date and time:,2025-11-22 04:50:00")
        #expect(
            lines[1].hasPrefix("Notes:,\"tool: hcipico 0.1.0; device: cell-1; address: C0:FF:EE:00:00:01 (public);")
        )
        #expect(lines[1].contains("script: SWV.mscr; script_sha256: \(String(repeating: "ab", count: 32));"))
        #expect(lines[1].hasSuffix("; end: complete, 5 packages; times UTC\""))
        #expect(lines[2] == ",,,")
        #expect(lines[3] == "swv: I vs E Scan 1,,swv: I vs E Scan 2,")
        #expect(
            lines[4] == "Date and time measurement:,2025-11-22 04:50:01,Date and time measurement:,2025-11-22 04:50:04"
        )
        #expect(lines[5] == "V,µA,V,µA")
        #expect(lines[6] == "-0.5,-57.847747,-0.5,0.001")
        #expect(lines[7] == "-0.49,0.03,-0.49,NaN")
        #expect(lines[8] == "-0.48,-5e-05,,")
    }

    @Test func chronoamperometryIsCurrentAgainstTheDevicesTime() throws {
        let packages = (0..<3).map { index in
            Self.package(
                index,
                scan: nil,
                values: [
                    PicoValue(variable: .time, name: "t", value: Double(index) * 0.1),
                    PicoValue(variable: .current, name: "c", value: 2e-6),
                ]
            )
        }
        let lines = try Self.lines(try Self.export(packages, title: "ca"))
        #expect(lines[3] == "ca: I vs t Loop 1,")
        #expect(lines[5] == "s,µA")
        #expect(Array(lines.dropFirst(6)) == ["0.0,2.0", "0.1,2.0", "0.2,2.0"])
    }

    @Test func impedanceIsTheEISBlock() throws {
        let packages = [(100_000.0, 100.5, 0.5), (63_095.734, 101.0, 2.0), (100.0, 110.0, 0.0)].enumerated().map {
            index,
            point in
            Self.package(
                index,
                scan: nil,
                values: [
                    PicoValue(variable: .appliedFrequency, name: "f", value: point.0),
                    PicoValue(variable: .zReal, name: "z_re", value: point.1),
                    PicoValue(variable: .zImaginary, name: "z_im", value: point.2),
                ]
            )
        }
        let lines = try Self.lines(try Self.export(packages, title: "eis"))
        #expect(lines.count == 9)
        #expect(lines[2] == ",,,,,,")
        #expect(lines[3] == "eis: impedance,,,,,,")
        #expect(lines[5] == "freq / Hz,neg. Phase / °,Idc / uA,Z / Ohm,Z' / Ohm,Z'' / Ohm,Cs / F")
        let fields = lines[7].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(fields[0] == "63095.734")
        let phase: Double = atan2(2.0, 101.0) * 180 / Double.pi
        #expect(abs(Double(fields[1])! - phase) < 1e-12)
        #expect(fields[2] == "")
        let modulus: Double = (101.0 * 101.0 + 4).squareRoot()
        #expect(abs(Double(fields[3])! - modulus) < 1e-12)
        #expect(fields[4] == "101.0")
        #expect(fields[5] == "2.0")
        let capacitance: Double = 1 / (2 * Double.pi * 63_095.734 * 2)
        #expect(abs(Double(fields[6])! - capacitance) < 1e-18)
        // Z'' = 0: no series capacitance.
        #expect(lines[8].hasSuffix(",110.0,0.0,"))
    }

    @Test func anythingElseIsAColumnPerValue() throws {
        let packages = [
            Self.package(0, scan: nil, values: [PicoValue(variable: .temperature, name: "temp", value: 21.5)]),
            Self.package(1, scan: nil, values: [PicoValue(variable: .count, value: 7)]),
        ]
        let lines = try Self.lines(try Self.export(packages, title: "log"))
        #expect(lines.count == 8)
        #expect(lines[3] == "log: values,,")
        #expect(lines[5] == "package,temp [°C],ee")
        #expect(Array(lines.dropFirst(6)) == ["0,21.5,", "1,,7.0"])
    }

    @Test func anIncompleteRunSaysSoAndAnEmptyOneStillHasSixHeaderLines() throws {
        let lines = try Self.lines(
            try Self.export([], end: RunEnd(complete: false, reason: "connection lost", packages: 0))
        )
        #expect(lines.count == 6)
        #expect(
            lines[1] == "Notes:,\"device: sim; run: 1; title: cv; start_utc: 2025-11-22T04:50:00.000Z; "
                + "end: incomplete (connection lost), 0 packages; times UTC\""
        )
    }

    @Test func theFileIsRewrittenWholeWhileTheRunGoesOn() throws {
        let path = SinkTests.temporaryPath("growing.pstrace.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try PSTraceSink(path: path)
        try sink.begin(RunInfo(device: "sim", run: 1, title: "cv", startTime: 1_763_787_000))
        func point(_ index: Int) -> PicoPackage {
            Self.package(
                index,
                scan: 1,
                values: [
                    PicoValue(variable: .appliedPotential, name: "p", value: Double(index) / 100),
                    PicoValue(variable: .current, name: "c", value: 1e-6, status: .ok),
                ]
            )
        }
        // Packages 1 s apart from 1 s after the start: rewrites at the second (2 s) and the fourth (4 s).
        for index in 0..<5 { try sink.write(point(index)) }
        let running = try Self.lines(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(running[1].contains("end: running, 4 packages so far"), "\(running[1])")
        #expect(running.count == 6 + 4)
        try sink.finish(RunEnd(complete: true, packages: 5))
        let finished = try Self.lines(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(finished[1].contains("end: complete, 5 packages"), "\(finished[1])")
        #expect(finished.count == 6 + 5)
    }

    @Test func anExistingFileIsNotClobberedAndAFailedWriteThrows() throws {
        let path = SinkTests.temporaryPath("exists.pstrace.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "keep".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: SinkError.self) { try PSTraceSink(path: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep")

        let full = try PSTraceSink(path: "/dev/full", overwrite: true)
        try full.begin(RunInfo(device: "sim", run: 1, title: "cv", startTime: 0))
        let error = #expect(throws: SinkError.self) { try full.finish(RunEnd(complete: true, packages: 0)) }
        #expect(error?.errno == ENOSPC)
    }

    @Test func decimalShiftKeepsTheDevicesDigits() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let mantissa = Int.random(in: -134_217_728...134_217_727, using: &random)
            let exponent = Int.random(in: -18...18, using: &random)
            let value = Double("\(mantissa)e\(exponent)")!
            let expected = String(Double("\(mantissa)e\(exponent + 6)")!)
            #expect(SinkText.number(value, timesTenToThe: 6, nan: "NaN") == expected)
        }
        #expect(SinkText.number(-5.78e-05, timesTenToThe: 6, nan: "NaN") == "-57.8")
        #expect(SinkText.number(.nan, timesTenToThe: 6, nan: "NaN") == "NaN")
    }
}
