import Logging
import Synchronization

/// A swift-log handler that keeps every message it is given, with its level, for a test to read.
final class RecordedLog: Sendable {
    private let entries = Mutex<[(level: Logger.Level, message: String)]>([])

    /// A logger at `level` whose messages are kept here.
    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    /// The messages at `level` and above, in order.
    func messages(atLeast level: Logger.Level) -> [String] {
        entries.withLock { $0.filter { $0.level >= level }.map(\.message) }
    }

    private struct Handler: LogHandler {
        let log: RecordedLog
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.entries.withLock { $0.append((event.level, "\(event.message)")) }
        }
    }
}
