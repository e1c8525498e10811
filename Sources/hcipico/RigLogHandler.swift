import Foundation
import Logging

/// One line per event on stderr. Under systemd (`JOURNAL_STREAM` set) each line starts with its
/// syslog priority (`<4>`) and carries no timestamp, since journald adds its own; on a terminal it
/// starts with the local time and the level.
struct RigLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
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
        FileHandle.standardError.write(Data(line.utf8))
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
