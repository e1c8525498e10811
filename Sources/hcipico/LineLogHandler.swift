import Foundation
import Logging
import Synchronization

/// One line per event on stderr, for every command that logs (the rig, and link diagnostics with
/// `--log-level` or `-v`). Under systemd (`JOURNAL_STREAM` set) each line starts with its
/// syslog priority (`<4>`) and carries no timestamp, since journald adds its own; on a terminal it
/// starts with the local time and the level.
struct LineLogHandler: LogHandler {
    /// The process's one threshold, which `--log-level` and `-v` set once the arguments are parsed;
    /// every logger made before or after follows it, unless its own level was set. Info until then.
    static let threshold = Atomic<UInt8>(Self.index(.info))

    /// A level set on this logger alone (a library quietening its own logger), instead of the threshold.
    private var ownLevel: Logger.Level?

    var logLevel: Logger.Level {
        get { ownLevel ?? Logger.Level.allCases[Int(Self.threshold.load(ordering: .relaxed))] }
        set { ownLevel = newValue }
    }
    var metadata: Logger.Metadata = [:]

    static func index(_ level: Logger.Level) -> UInt8 {
        UInt8(Logger.Level.allCases.firstIndex(of: level) ?? 2)
    }

    /// Installs it as swift-log's handler, at the start of `main`: nothing is logged to standard
    /// output (swift-log's default) by code that runs before a command parses its level.
    static func bootstrap() {
        LoggingSystem.bootstrap { LineLogHandler(label: $0) }
    }
    let underSystemd: Bool

    init(label: String, underSystemd: Bool = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil) {
        self.underSystemd = underSystemd
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
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
    static func priority(_ level: Logger.Level) -> Int {
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
