import Foundation
import Testing

@testable import RigCore

/// `at = [...]` schedules run each time once a local day, through the days the clock changes.
@Suite struct RunScheduleTests {
    /// Berlin: summer time ends 2026-10-25 at 03:00 (02:00–03:00 passes twice) and begins 2026-03-29
    /// at 02:00 (02:00–03:00 never passes).
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return calendar
    }()

    static func instant(_ text: String) -> Double {
        ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970
    }

    static func next(_ schedule: RunSchedule, after lastStart: String?, now: String) -> Double? {
        schedule.nextStart(after: lastStart.map(instant), now: instant(now), calendar: calendar)
    }

    @Test func eachTimeRunsOnceADayInOrder() {
        let schedule = RunSchedule.daily([TimeOfDay("08:30")!, TimeOfDay("20:00")!])
        #expect(
            Self.next(schedule, after: nil, now: "2026-06-10T10:00:00+02:00")
                == Self.instant("2026-06-10T20:00:00+02:00")
        )
        #expect(
            Self.next(schedule, after: "2026-06-10T20:00:00+02:00", now: "2026-06-10T20:00:05+02:00")
                == Self.instant("2026-06-11T08:30:00+02:00")
        )
        #expect(
            Self.next(schedule, after: nil, now: "2026-06-10T08:30:00+02:00")
                == Self.instant("2026-06-10T08:30:00+02:00")
        )
    }

    @Test func anHourThatPassesTwiceRunsOnce() {
        let schedule = RunSchedule.daily([TimeOfDay("02:30")!])
        // The run at the first 02:30 (summer time) is not followed by another at the second (winter time).
        #expect(
            Self.next(schedule, after: "2026-10-25T02:30:00+02:00", now: "2026-10-25T02:31:10+02:00")
                == Self.instant("2026-10-26T02:30:00+01:00")
        )
        // Started between the two passes: today's 02:30 has been.
        #expect(
            Self.next(schedule, after: nil, now: "2026-10-25T02:10:00+01:00")
                == Self.instant("2026-10-26T02:30:00+01:00")
        )
        #expect(
            Self.next(schedule, after: nil, now: "2026-10-25T01:00:00+02:00")
                == Self.instant("2026-10-25T02:30:00+02:00")
        )
    }

    @Test func anHourThatNeverPassesRunsAtTheNextTimeThatDoes() {
        let schedule = RunSchedule.daily([TimeOfDay("02:30")!])
        #expect(
            Self.next(schedule, after: nil, now: "2026-03-29T01:00:00+01:00")
                == Self.instant("2026-03-29T03:00:00+02:00")
        )
        #expect(
            Self.next(schedule, after: "2026-03-29T03:00:00+02:00", now: "2026-03-29T03:05:00+02:00")
                == Self.instant("2026-03-30T02:30:00+02:00")
        )
    }

    @Test func onlyTimesOfDayFollowTheWallClockAndAnEveryWaitsAtMostItsPeriod() {
        #expect(RunSchedule.daily([TimeOfDay("08:00")!]).followsWallClock)
        #expect(!RunSchedule.every(60).followsWallClock && !RunSchedule.continuous.followsWallClock)
        let lastStart = 1_800_000_000.0
        let schedule = RunSchedule.every(60)
        #expect(schedule.nextStart(after: lastStart, now: lastStart + 5, calendar: Self.calendar) == lastStart + 60)
        // The clock was set an hour back since the last run started: the wait is the period, not 61 min.
        let afterStep = schedule.nextStart(after: lastStart, now: lastStart - 3_600, calendar: Self.calendar)
        #expect(afterStep == lastStart - 3_600 + 60)
    }
}
