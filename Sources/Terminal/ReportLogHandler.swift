public import Logging

/// How a one-shot command shows what its links report through swift-log: what a person should see
/// (notice and up: a pairing, a link tuning step, a dropped PDU) as `PROGRAM: …` lines on standard
/// error, like the command's own reports (`StandardError.report`); details (debug) as
/// ``LineLogHandler`` lines.
public struct ReportLogHandler: LogHandler {
    private var lines: LineLogHandler

    /// A handler for the logger `label`.
    public init(label: String) { lines = LineLogHandler(label: label) }

    /// The logger a command gives the links it opens (`PROGRAM.link`).
    public static let logger = Logger(label: "\(StandardError.program).link") { ReportLogHandler(label: $0) }

    /// The level, as ``LineLogHandler`` keeps it.
    public var logLevel: Logger.Level {
        get { lines.logLevel }
        set { lines.logLevel = newValue }
    }

    /// The logger's metadata.
    public var metadata: Logger.Metadata {
        get { lines.metadata }
        set { lines.metadata = newValue }
    }

    /// One metadata value.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { lines[metadataKey: key] }
        set { lines[metadataKey: key] = newValue }
    }

    /// Notice and up as a report, the rest as a line.
    public func log(event: LogEvent) {
        guard event.level >= .notice else { return lines.log(event: event) }
        StandardError.report("\(event.message)")
    }
}
