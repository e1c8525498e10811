public import Foundation

/// When a device runs its script.
public enum RunSchedule: Sendable, Equatable, CustomStringConvertible {
    /// One run after the rig starts (a run cut short is not repeated).
    case once
    /// Start again as soon as a run ends.
    case continuous
    /// A run every so many seconds, counted from the previous run's start; a run that overruns its
    /// slot delays the next one (slots are never stacked up).
    case every(Double)
    /// At these times of day, local time, each once a day: an hour the clock sets back runs once (at
    /// its first pass), and a time the clock skips runs at the next time that exists.
    case daily([TimeOfDay])
    /// Only the runs asked for through the rig's API; the device stays connected, waiting for them.
    case onDemand

    public var description: String {
        switch self {
        case .once: "once"
        case .continuous: "continuous"
        case .every(let seconds): "every \(DurationText.text(seconds))"
        case .daily(let times): "daily at " + times.map(\.description).joined(separator: ", ")
        case .onDemand: "on demand"
        }
    }

    /// Whether the device waits for requests when the schedule has no more runs (`onDemand`); the others
    /// end their device's supervisor once done and nothing is queued.
    public var waitsForRequests: Bool { self == .onDemand }

    /// Whether a run's time is a time of day, which a clock set forward or back moves (`at`), rather
    /// than a time elapsed since the last run (`every`), which it does not.
    public var followsWallClock: Bool {
        if case .daily = self { true } else { false }
    }

    /// When the next run starts (seconds since the Unix epoch), or nil when the schedule is done.
    /// `lastStart` is the previous run's start (nil before the first), `now` the present.
    public func nextStart(after lastStart: Double?, now: Double, calendar: Calendar) -> Double? {
        switch self {
        case .onDemand:
            return nil
        case .once:
            return lastStart == nil ? now : nil
        case .continuous:
            return now
        case .every(let period):
            guard let lastStart else { return now }
            let slot = lastStart + period
            // Never more than a period away: a clock set back since the last run started would put the
            // slot that much further off.
            if slot >= now { return min(slot, now + period) }
            // Overran or slept through slots: the next slot on the same grid, never one in the past.
            let missed = ((now - lastStart) / period).rounded(.up)
            return lastStart + missed * period
        case .daily(let times):
            // Each time's slot in today, tomorrow and the day after: the first that is not past and not
            // the slot of the run just started (the same minute).
            let today = calendar.startOfDay(for: Date(timeIntervalSince1970: now))
            let slots = (0...2).flatMap { offset -> [Double] in
                guard let day = calendar.date(byAdding: .day, value: offset, to: today) else { return [] }
                return times.compactMap { Self.slot($0, on: day, calendar: calendar) }
            }
            return slots.filter { slot in slot > now - 0.001 && (lastStart.map { slot > $0 + 59 } ?? true) }.min()
        }
    }

    /// When `time` comes on the local `day` (its start): the first pass of it, so that an hour the clock
    /// sets back passes once; where the clock skips it, the next time that exists (03:00 for 02:30 on
    /// the day summer time begins at 02:00).
    static func slot(_ time: TimeOfDay, on day: Date, calendar: Calendar) -> Double? {
        guard
            let slot = calendar.nextDate(
                after: day.addingTimeInterval(-0.001),
                matching: DateComponents(hour: time.hour, minute: time.minute, second: 0),
                matchingPolicy: .nextTime
            ), calendar.isDate(slot, inSameDayAs: day)
        else { return nil }
        return slot.timeIntervalSince1970
    }
}

/// A time of day, `HH:MM` (24-hour).
public struct TimeOfDay: Sendable, Equatable, Comparable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int

    /// `08:00`, `8:00`, `20:30`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        self.hour = hour
        self.minute = minute
    }

    public var description: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
        (lhs.hour, lhs.minute) < (rhs.hour, rhs.minute)
    }
}
