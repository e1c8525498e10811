import Logging

/// How a one-shot command shows what its links report through swift-log: what a person should see
/// (notice and up: a pairing, a link tuning step, a dropped PDU) as `hcipico: …` lines on standard
/// error, like the command's own reports; details (debug, with `-v`) as `LineLogHandler` lines.
struct ReportLogHandler: LogHandler {
    private var lines: LineLogHandler

    init(label: String) { lines = LineLogHandler(label: label) }

    /// The logger the commands give `LinkOpener`.
    static let logger = Logger(label: "hcipico.link") { ReportLogHandler(label: $0) }

    var logLevel: Logger.Level {
        get { lines.logLevel }
        set { lines.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { lines.metadata }
        set { lines.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { lines[metadataKey: key] }
        set { lines[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= .notice else { return lines.log(event: event) }
        StandardError.report("\(event.message)")
    }
}
