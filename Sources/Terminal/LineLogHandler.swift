import Foundation
public import Logging
public import Synchronization

/// One line per event on standard error, for a program whose logs a person or journald reads (the
/// rig, and link diagnostics). Under systemd (`JOURNAL_STREAM` set) each line starts with its
/// syslog priority (`<4>`) and carries no timestamp, since journald adds its own; on a terminal it
/// starts with the local time and the level.
public struct LineLogHandler: LogHandler {
    /// The process's one threshold, which a program sets once its arguments are parsed (`--log-level`);
    /// every logger made before or after follows it, unless its own level was set. Info until then.
    public static let threshold = Atomic<UInt8>(Self.index(.info))

    /// A level set on this logger alone (a library quietening its own logger), instead of the threshold.
    private var ownLevel: Logger.Level?

    /// The level this logger logs from: its own when set, else the process's threshold.
    public var logLevel: Logger.Level {
        get { ownLevel ?? Logger.Level.allCases[Int(Self.threshold.load(ordering: .relaxed))] }
        set { ownLevel = newValue }
    }
    /// The logger's metadata (not written: a line is its message).
    public var metadata: Logger.Metadata = [:]

    /// The position of `level` among swift-log's levels, as ``threshold`` holds it.
    public static func index(_ level: Logger.Level) -> UInt8 {
        UInt8(Logger.Level.allCases.firstIndex(of: level) ?? 2)
    }

    /// Installs it as swift-log's handler, at the start of `main`: nothing is logged to standard
    /// output (swift-log's default) by code that runs before a command parses its level.
    public static func bootstrap() {
        LoggingSystem.bootstrap { LineLogHandler(label: $0) }
    }
    /// Whether lines go to journald (`JOURNAL_STREAM` set): a priority prefix and no timestamp.
    public let underSystemd: Bool

    /// A handler for the logger `label`; `underSystemd` as the environment says unless given.
    public init(label: String, underSystemd: Bool = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil) {
        self.underSystemd = underSystemd
    }

    /// One metadata value.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the event as one line on standard error.
    public func log(event: LogEvent) {
        let line: String
        if underSystemd {
            line = "<\(Self.priority(event.level))>\(event.message)\n"
        } else {
            let time = Self.format.string(from: Date())
            line = "\(time) \(event.level.rawValue.uppercased()) \(event.message)\n"
        }
        StandardError.write(line)
    }

    /// syslog priorities (sd-daemon.h): 2 critical … 7 debug.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    private static let format: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter
    }()
}
