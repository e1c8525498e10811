import Logging
import Testing

@testable import hcipico

/// `--log-level` and `-v`: the level each asks for, and the two together refused.
@Suite struct LogOptionsTests {
    @Test func eachFormGivesItsLevel() throws {
        #expect(try LogOptions.parse([]).level == .info)
        #expect(try LogOptions.parse(["-v"]).level == .debug)
        #expect(try LogOptions.parse(["-vv"]).level == .trace)
        #expect(try LogOptions.parse(["--verbose", "--verbose", "--verbose"]).level == .trace)
        #expect(try LogOptions.parse(["--log-level", "warning"]).level == .warning)
        #expect(throws: (any Error).self) { try LogOptions.parse(["--log-level", "loud"]) }
        #expect(throws: (any Error).self) { try LogOptions.parse(["-v", "--log-level", "error"]) }
    }

    @Test func theHandlerFollowsTheOneThreshold() throws {
        let before = LineLogHandler.threshold.load(ordering: .relaxed)
        defer { LineLogHandler.threshold.store(before, ordering: .relaxed) }
        try LogOptions.parse(["--log-level", "error"]).apply()
        let handler = LineLogHandler(label: "test", underSystemd: true)
        #expect(handler.logLevel == .error)
        try LogOptions.parse(["-v"]).apply()
        #expect(handler.logLevel == .debug, "a handler made earlier follows too")
        // A library that quietens its own logger (the status server's HTTP logger) quietens only that one.
        var quiet = LineLogHandler(label: "server", underSystemd: true)
        quiet.logLevel = .critical
        #expect(quiet.logLevel == .critical)
        #expect(handler.logLevel == .debug && LineLogHandler(label: "other").logLevel == .debug)
        #expect(LineLogHandler.priority(.warning) == 4 && LineLogHandler.priority(.debug) == 7)
    }
}
