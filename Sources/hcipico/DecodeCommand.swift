import ArgumentParser
import Foundation
import MethodSCRIPT
import RunResults
import SystemPackage
import Terminal

/// `hcipico decode [FILE|-]`: a MethodSCRIPT device transcript → a table, CSV or JSON Lines.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a MethodSCRIPT device transcript (P lines and replies) into samples.",
        discussion: """
            Reads FILE (or standard input for '-' or no FILE) as it arrives. The table has one row per value \
            (its input line, code, value, unit, status, range) and a note per loop, scan and reply, flushed \
            line by line; --csv and --jsonl write what connect writes for a run: the per-point CSV (run, scan, \
            loop, package, host_time, then a column per value) and JSON Lines (a start event, an object per \
            value, the end event), values named by their type code since a transcript has no script, and \
            host_time empty. Malformed lines are reported on standard error with their line, column and \
            byte offset; decoding goes on and the exit status is then 2. Device errors (!XXXX) are reported \
            on standard error too (exit status 3 when no line was malformed).
            """
    )

    @Argument(help: "The transcript to decode; '-' or nothing for standard input.")
    var file: String = "-"

    @Flag(help: "Write connect's per-point CSV: run,scan,loop,package,host_time, then a column per value.")
    var csv = false

    @Flag(help: "Write connect's JSON Lines: a start event, one object per value, the end event.")
    var jsonl = false

    @Option(help: "Device family for range labels: \(DeviceFamily.allCases.map(\.rawValue).joined(separator: ", ")).")
    var family: String = DeviceFamily.pico.rawValue

    func validate() throws {
        if csv && jsonl { throw ValidationError("choose one of --csv and --jsonl") }
        if DeviceFamily(rawValue: family) == nil { throw ValidationError("unknown device family '\(family)'") }
    }

    func run() throws {
        let descriptor: FileDescriptor
        if file == "-" {
            descriptor = .standardInput
        } else {
            do {
                descriptor = try FileDescriptor.open(FilePath(file), .readOnly, options: [.closeOnExec])
            } catch {
                StandardError.write("hcipico decode: cannot open \(file): \(error)\n")
                throw ExitStatus.badInput.exitCode
            }
        }
        defer { if descriptor != .standardInput { try? descriptor.close() } }
        let format: TranscriptDecoder.Format = csv ? .csv : jsonl ? .jsonl : .table
        let decoder: TranscriptDecoder
        do {
            decoder = try TranscriptDecoder(
                format: format,
                family: DeviceFamily(rawValue: family) ?? .pico,
                name: file,
                emit: ValueText.emit,
                report: { StandardError.write("hcipico decode: \($0)\n") }
            )
        } catch {
            StandardError.write("hcipico decode: \(error)\n")
            throw ExitStatus.writeFailed.exitCode
        }
        do {
            try decoder.decode(descriptor)
        } catch {
            StandardError.write("hcipico decode: cannot read \(file): \(error)\n")
            throw ExitStatus.badInput.exitCode
        }
        if let failure = decoder.writeFailure {
            // A reader that left (`| head`) is a closed output, as for every command; else a failed write.
            if failure.isOutputClosed { throw ExitStatus.outputClosed.exitCode }
            StandardError.write("hcipico decode: \(failure)\n")
            throw ExitStatus.writeFailed.exitCode
        }
        if decoder.malformedLines > 0 { throw ExitStatus.malformedInput.exitCode }
        if decoder.deviceErrors > 0 { throw ExitStatus.deviceError.exitCode }
    }
}
