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
}
