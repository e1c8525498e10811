import Foundation
import MethodSCRIPT
import PicoLink
import RunResults
import Testing

/// The files a run writes: their names under `--out DIR`, the folder itself, a transcript recorded as a
/// live run would be (`DecodedRun`), and a run kept in memory for `:save`.
@Suite struct RunOutputFilesTests {
    private static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "run-outputs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test func namedOutputsNeverReplaceAnEarlierRunsFiles() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        var first = RunOutputs(overwrite: false)
        first.name(in: directory, device: "sim/pico", title: "cv run", start: start)
        let stamp = RunOutputs.stamp(start)
        #expect(first.csv == "\(directory)/sim-pico-cv-run-\(stamp).csv")
        #expect(first.results == "\(directory)/sim-pico-cv-run-\(stamp)")
        #expect(first.named.count == 6)
        _ = FileManager.default.createFile(atPath: try #require(first.svg), contents: Data())
        var second = RunOutputs(overwrite: false)
        second.name(in: directory, device: "sim/pico", title: "cv run", start: start)
        #expect(second.csv == "\(directory)/sim-pico-cv-run-\(stamp)-2.csv")
        // Paths given by the user are kept.
        var given = RunOutputs(csv: "-", overwrite: false)
        given.name(in: directory, device: "d", title: "t", start: start)
        #expect(given.csv == "-" && given.usesStandardOutput)
    }

    @Test func theOutputFolderIsMadeOnceAndAFileIsRefused() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let inner = directory + "/runs"
        try OutputFolder.prepare(inner)
        try OutputFolder.prepare(inner)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: inner, isDirectory: &isDirectory) && isDirectory.boolValue)
        let file = directory + "/file"
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        #expect(throws: OutputFolder.Problem.self) { try OutputFolder.prepare(file) }
        do {
            try OutputFolder.prepare(directory + "/no/such/parent")
            Issue.record("a folder without its parent was made")
        } catch {
            #expect(error.description.hasPrefix("--out \(directory)/no/such/parent: cannot make the folder"))
        }
    }

    /// Loops and scans are counted from 1, as a live run counts them, whatever the markers' own digits.
    @Test func aTranscriptIsNumberedAsALiveRun() throws {
        let transcript = """
            e
            M0007
            C0003
            Pda8000000u;ba8000000u
            -
            C0003
            Pda8000000u;ba8000000u
            -
            *
            M0009
            Pda8000000u;ba8000000u
            *

            """
        let sink = KeepingSink()
        let run = DecodedRun(sink: sink, device: "transcript")
        try run.begin()
        let parser = ReplyParser()
        var failure: SinkError?
        Array((transcript + "\n").utf8).withUnsafeBytes { bytes in
            let handler: (ReplyEvent, LineLocation) -> Void = { event, _ in
                do throws(SinkError) { try run.event(event) } catch { failure = error }
            }
            parser.feed(bytes, handler)
            parser.finish(handler)
        }
        #expect(failure == nil)
        try run.finish()
        #expect(sink.packages.map(\.loop) == [1, 1, 2])
        #expect(sink.packages.map(\.scan) == [1, 2, nil])
        #expect(sink.packages.map(\.index) == [0, 1, 2])
        #expect(sink.ends.map(\.complete) == [true])
        // Cut before the closing empty line: incomplete, and said why.
        let cut = KeepingSink()
        let cutRun = DecodedRun(sink: cut, device: "transcript")
        try cutRun.finish()
        #expect(cut.ends.first?.complete == false && cut.ends.first?.reason?.contains("closing empty line") == true)
    }

    @Test func aRunKeptInMemoryIsReplayedWhole() throws {
        let memory = RunMemory(limit: 2)
        let provenance = RunProvenance(
            device: "d",
            deviceRun: 1,
            title: "t",
            transport: "sim:pico",
            scriptName: "t",
            script: "",
            scriptSHA256: "",
            toolVersion: "test",
            startTime: 0
        )
        memory.start(provenance: provenance)
        try memory.begin(RunInfo(device: "d", run: 1, title: "t", startTime: 0))
        for index in 0..<3 {
            try memory.write(
                PicoPackage(device: "d", run: 1, index: index, loop: 1, scan: nil, hostTime: 0, values: [])
            )
        }
        try memory.finish(RunEnd(complete: true, reason: nil, packages: 3))
        #expect(memory.dropped == 1 && memory.packages.count == 2)
        let replayed = KeepingSink()
        try memory.replay(into: replayed)
        #expect(replayed.packages.map(\.index) == [0, 1] && replayed.ends.count == 1)
    }
}
