import Foundation

/// Which runs to select: every field narrows the selection; the default selects all.
public struct RunFilter: Sendable, Equatable {
    public var ids: [Int64]?
    public var devices: [String]?
    /// Runs that started at or after this time (seconds since the Unix epoch).
    public var since: Double?
    /// Runs that started before this time.
    public var until: Double?
    /// Only the newest this many of the runs selected (still listed oldest first).
    public var latest: Int?
    /// Only runs recorded before this one (a smaller row id): the next page of older runs.
    public var before: Int64?

    public init(
        ids: [Int64]? = nil,
        devices: [String]? = nil,
        since: Double? = nil,
        until: Double? = nil,
        latest: Int? = nil,
        before: Int64? = nil
    ) {
        self.ids = ids
        self.devices = devices
        self.since = since
        self.until = until
        self.latest = latest.map { max(0, $0) }
        self.before = before
    }
}

extension RunFilter {
    /// Seconds since the epoch for a local date, or date and time: `2026-11-25`, `2026-11-25T14:03`,
    /// `2026-11-25T14:03:07` or `2026-11-25 14:03:07`; nil for anything else.
    public static func time(parsing text: String) -> Double? {
        for pattern in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = pattern
            if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        }
        return nil
    }

    /// `2026-11-25 14:03:07`, local time, as the run listing shows a start.
    public static func localTime(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
