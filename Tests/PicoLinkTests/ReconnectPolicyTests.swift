import Testing

@testable import PicoLink

@Suite struct ReconnectPolicyTests {
    @Test func delaysGrowExponentiallyUpToTheCap() {
        let policy = ReconnectPolicy(initialDelay: 0.5, multiplier: 2, maximumDelay: 4, jitter: 0)
        let delays = (1...6).map { policy.delay(beforeRetry: $0, random: 0.7) }
        #expect(delays == [0.5, 1, 2, 4, 4, 4])
    }

    @Test func jitterStaysWithinItsFraction() {
        let policy = ReconnectPolicy(initialDelay: 1, multiplier: 2, maximumDelay: 30, jitter: 0.5)
        #expect(policy.delay(beforeRetry: 2, random: 0) == 1)
        #expect(policy.delay(beforeRetry: 2, random: 0.999) ?? 0 < 2)
        #expect(policy.delay(beforeRetry: 2, random: 0.5) == 1.5)
    }

    @Test func givesUpAfterTheLimit() {
        let policy = ReconnectPolicy(maximumRetries: 3)
        #expect(policy.delay(beforeRetry: 3, random: 0) != nil)
        #expect(policy.delay(beforeRetry: 4, random: 0) == nil)
        #expect(ReconnectPolicy.never.delay(beforeRetry: 1, random: 0) == nil)
    }

    @Test func statusDescriptions() {
        #expect(
            DeviceStatus.waitingToReconnect(attempt: 2, delay: 1.5).description == "reconnecting in 1.5 s (attempt 2)"
        )
        #expect(DeviceStatus.connecting(attempt: 1).description == "connecting")
    }
}
