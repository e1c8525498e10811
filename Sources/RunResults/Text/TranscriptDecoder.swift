public import MethodSCRIPT
public import PicoLink
public import SystemPackage

/// Decodes a device transcript (the P lines and replies `connect --raw` captures, or PalmSens' own) as
/// it arrives, into a table for people or into `connect`'s per-point CSV or JSON Lines.
///
/// The table has a row per value (its input line, code, value, unit, status, range) and a note per
/// loop, scan and reply, handed to `emit` at the end of every input line that produced some. The CSV
/// and JSON Lines go to standard output through `DecodedRun`, with the loop and scan numbers every
/// output gives. Malformed lines and device errors go to `report` with where they are; decoding goes on.
public final class TranscriptDecoder {
    /// What the decoder writes.
    public enum Format: String, Sendable, CaseIterable {
        /// A row per value and a note per event, for people.
        case table
        /// `connect`'s per-point CSV.
        case csv
        /// `connect`'s JSON Lines.
        case jsonl
    }

    /// The chosen form.
    public let format: Format
    /// The family whose range labels the table gives.
    public let family: DeviceFamily
    /// The transcript's name in reports (`<stdin>` for `-`).
    public let name: String
    /// Lines that could not be decoded.
    public private(set) var malformedLines = 0
    /// Device error replies (`!XXXX`) met.
    public private(set) var deviceErrors = 0
    /// The first write to the CSV or JSON Lines output that failed; nothing more is written after it.
    public private(set) var writeFailure: SinkError?

    private let emit: (String) -> Void
    private let report: (String) -> Void
    private var out = ""
    private var pendingLine = 0
    /// The table's loop and scan numbers, from 1 as every output counts them (the markers' own
    /// digits are an id, `M0000`, not a count).
    private var loops = 0
    private var scans = 0
    /// The CSV or JSON Lines output (nil for the table).
    private let run: DecodedRun?

    /// A decoder writing `format`; `emit` takes the table's text, `report` one message per problem.
    public init(
        format: Format,
        family: DeviceFamily,
        name: String,
        emit: @escaping (String) -> Void,
        report: @escaping (String) -> Void
    ) throws(SinkError) {
        self.format = format
        self.family = family
        self.name = name == "-" ? "<stdin>" : name
        self.emit = emit
        self.report = report
        switch format {
        case .table: run = nil
        case .csv: run = DecodedRun(sink: PointCSVSink(file: try SinkFile(path: "-")), device: self.name)
        case .jsonl: run = DecodedRun(sink: JSONLinesSink(file: try SinkFile(path: "-")), device: self.name)
        }
    }

    /// Reads `descriptor` to its end and decodes all of it: the header, every line, the end marker.
    public func decode(_ descriptor: FileDescriptor) throws(Errno) {
        let parser = ReplyParser()
        let handler: (ReplyEvent, LineLocation) -> Void = { self.write($0, at: $1) }
        header()
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { chunk.deallocate() }
        while true {
            let count: Int
            do {
                count = try descriptor.read(into: chunk)
            } catch {
                throw (error as? Errno) ?? .ioError
            }
            if count == 0 { break }
            parser.feed(UnsafeRawBufferPointer(rebasing: chunk[0..<count]), handler)
        }
        parser.finish(handler)
        finish()
    }

    /// The table's column heads, or the CSV's or JSON Lines' start.
    func header() {
        guard let run else {
            out +=
                TextColumn.pad("line", 7) + "  code  " + TextColumn.pad("value", 16) + "  unit  "
                + TextColumn.pad("status", 10, left: true) + "  range\n"
            return flush()
        }
        guarded { () throws(SinkError) in try run.begin() }
    }

    /// Ends the CSV or JSON Lines output with its end marker, and hands over what the table holds.
    func finish() {
        if let run { guarded { () throws(SinkError) in try run.finish() } }
        flush()
    }

    private func guarded(_ body: () throws(SinkError) -> Void) {
        guard writeFailure == nil else { return }
        do throws(SinkError) { try body() } catch { writeFailure = error }
    }

    /// One decoded event from the transcript's `location`.
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
            problem("\(name):\(error.line):\(error.column + 1): byte \(error.offset): \(error.reason): \(text)")
        case .deviceError(let reply):
            deviceErrors += 1
            var place = ""
            if let line = reply.scriptLine { place = " (script line \(line), column \(reply.scriptColumn ?? 0))" }
            problem("\(name):\(location.line): device error \(reply.code)\(place)")
        default:
            if format == .table { note(event, line: location.line) }
        }
    }

    private func flush() {
        guard !out.isEmpty else { return }
        emit(out)
        out.removeAll(keepingCapacity: true)
    }

    private func problem(_ message: String) {
        flush()
        report(message)
    }

    private func row(_ sample: Sample, line: Int) {
        let unit = sample.variable.unit
        let rangeLabel = sample.range.map {
            $0.info(family: family, variable: sample.variable)?.label ?? "index \($0.rawValue)"
        }
        let value = sample.isNaN ? "NaN" : sample.isInteger ? String(Int(sample.value)) : String(sample.value)
        out += TextColumn.pad(String(line), 7) + "  " + sample.variable.code + "    " + TextColumn.pad(value, 16)
        out += "  " + unit + String(repeating: " ", count: max(0, 4 - unit.count)) + "  "
        out += TextColumn.pad(sample.status.description, 10, left: true) + "  " + (rangeLabel ?? "") + "\n"
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
