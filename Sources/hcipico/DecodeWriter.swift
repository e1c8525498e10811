import Foundation
import MethodSCRIPT
import PicoLink
import RunResults

/// Writes decoded events in one of the `decode` formats: the table (flushed at the end of every input
/// line that produced some), or, for `--csv` and `--jsonl`, `connect`'s per-point table and JSON Lines
/// through `DecodedRun`; errors go to standard error.
final class DecodeWriter {
    let format: DecodeCommand.Format
    let family: DeviceFamily
    let name: String
    private(set) var malformedLines = 0
    private(set) var deviceErrors = 0
    private var out = ""
    private var pendingLine = 0
    /// The table's loop and scan numbers, from 1 as every output counts them (the markers' own
    /// digits are an id, `M0000`, not a count).
    private var loops = 0
    private var scans = 0
    /// The CSV or JSON Lines output (nil for the table).
    private let run: DecodedRun?
    private(set) var writeFailure: SinkError?

    init(format: DecodeCommand.Format, family: DeviceFamily, name: String) throws(SinkError) {
        self.format = format
        self.family = family
        self.name = name == "-" ? "<stdin>" : name
        switch format {
        case .table: run = nil
        case .csv: run = DecodedRun(sink: PointCSVSink(file: try SinkFile(path: "-")), device: self.name)
        case .jsonl: run = DecodedRun(sink: JSONLinesSink(file: try SinkFile(path: "-")), device: self.name)
        }
    }

    func header() {
        guard let run else {
            out +=
                TextColumn.pad("line", 7) + "  code  " + TextColumn.pad("value", 16) + "  unit  "
                + TextColumn.pad("status", 10, left: true)
            out += "  range\n"
            return flush()
        }
        guarded { () throws(SinkError) in try run.begin() }
    }

    /// Ends the CSV or JSON Lines output with its end marker.
    func finish() {
        if let run { guarded { () throws(SinkError) in try run.finish() } }
        flush()
    }

    private func guarded(_ body: () throws(SinkError) -> Void) {
        guard writeFailure == nil else { return }
        do throws(SinkError) { try body() } catch { writeFailure = error }
    }

    func write(_ event: ReplyEvent, at location: LineLocation) {
        if location.line != pendingLine {
            flush()
            pendingLine = location.line
        }
        if let run { guarded { () throws(SinkError) in try run.event(event) } }
        switch event {
        case .package(let samples):
            if run == nil { for sample in samples { row(sample, line: location.line) } }
        case .malformed(let error, let raw):
            malformedLines += 1
            let text = EscapedText.of(raw.prefix(120))
            report("\(name):\(error.line):\(error.column + 1): byte \(error.offset): \(error.reason): \(text)")
        case .deviceError(let reply):
            deviceErrors += 1
            var where_ = ""
            if let line = reply.scriptLine { where_ = " (script line \(line), column \(reply.scriptColumn ?? 0))" }
            report("\(name):\(location.line): device error \(reply.code)\(where_)")
        default:
            if format == .table { note(event, line: location.line) }
        }
    }

    func flush() {
        guard !out.isEmpty else { return }
        ValueText.emit(out)
        out.removeAll(keepingCapacity: true)
    }

    private func report(_ message: String) {
        flush()
        StandardError.write("hcipico decode: \(message)\n")
    }

    private func row(_ sample: Sample, line: Int) {
        let code = sample.variable.code
        let unit = sample.variable.unit
        let rangeLabel = sample.range.map {
            $0.info(family: family, variable: sample.variable)?.label ?? "index \($0.rawValue)"
        }
        switch format {
        case .table:
            let value =
                sample.isNaN
                ? "NaN" : sample.isInteger ? String(Int(sample.value)) : String(sample.value)
            out += TextColumn.pad(String(line), 7) + "  " + code + "    " + TextColumn.pad(value, 16) + "  " + unit
            out +=
                String(repeating: " ", count: max(0, 4 - unit.count)) + "  "
                + TextColumn.pad(sample.status.description, 10, left: true)
            out += "  " + (rangeLabel ?? "") + "\n"
        case .csv, .jsonl:
            break
        }
    }

    private func note(_ event: ReplyEvent, line: Int) {
        let text: String
        switch event {
        case .executeAccepted: text = "script accepted"
        case .measurementLoopStart:
            loops += 1
            scans = 0
            text = "measurement loop \(loops) starts"
        case .measurementLoopEnd: text = "measurement loop ends"
        case .scanStart:
            scans += 1
            text = "scan \(scans) starts"
        case .scanEnd: text = "scan ends"
        case .loopStart: text = "loop starts"
        case .loopEnd: text = "loop ends"
        case .text(let bytes): text = "text: \(EscapedText.of(bytes))"
        case .version(let bytes, _): text = "version: \(EscapedText.of(bytes))"
        case .abortReply(let code): text = "abort reply" + (code.map { " \($0)" } ?? "")
        case .serialNumber(let bytes): text = "serial number: \(EscapedText.of(bytes))"
        case .scriptEnd: text = "script ends"
        default: return
        }
        out += TextColumn.pad(String(line), 7) + "  # " + text + "\n"
    }
}
