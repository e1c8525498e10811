import MethodSCRIPT
import Testing

@Suite struct LimitsTests {
    @Test func scriptLinesAreLimitedAsOnTheDevice() {
        #expect(MethodSCRIPTLimits.maximumScriptLineLength == 128)
    }
}
