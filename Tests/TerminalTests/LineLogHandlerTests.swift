import Logging
import Terminal
import Testing

/// The process's one threshold (`LogOptions.apply` sets it; only this suite changes it in the tests),
/// which every logger follows unless its own level was set, and the
/// syslog priorities journald reads.
@Suite(.serialized) struct LineLogHandlerTests {
    @Test func everyHandlerFollowsTheOneThresholdUnlessItsOwnLevelWasSet() {
        let before = LineLogHandler.threshold.load(ordering: .relaxed)
        defer { LineLogHandler.threshold.store(before, ordering: .relaxed) }
        LineLogHandler.threshold.store(LineLogHandler.index(.error), ordering: .relaxed)
        let handler = LineLogHandler(label: "test", underSystemd: true)
        #expect(handler.logLevel == .error)
        LineLogHandler.threshold.store(LineLogHandler.index(.debug), ordering: .relaxed)
        #expect(handler.logLevel == .debug, "a handler made earlier follows too")
        // A library that quietens its own logger (the status server's HTTP logger) quietens only that one.
        var quiet = LineLogHandler(label: "server", underSystemd: true)
        quiet.logLevel = .critical
        #expect(quiet.logLevel == .critical)
        #expect(handler.logLevel == .debug && LineLogHandler(label: "other").logLevel == .debug)
        var report = ReportLogHandler(label: "link")
        #expect(report.logLevel == .debug, "a report handler follows it too")
        report.logLevel = .warning
        #expect(report.logLevel == .warning)
    }

    @Test func eachLevelHasItsSyslogPriority() {
        let priorities = Logger.Level.allCases.map(LineLogHandler.priority)
        #expect(priorities == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test func underSystemdIsWhatTheEnvironmentSaysUnlessGiven() {
        #expect(LineLogHandler(label: "a", underSystemd: false).underSystemd == false)
        #expect(LineLogHandler(label: "a", underSystemd: true).underSystemd == true)
    }
}
