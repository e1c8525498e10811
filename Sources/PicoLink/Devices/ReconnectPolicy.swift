/// When to try again after a link is lost: exponential backoff with a cap, full jitter and an optional
/// limit on attempts. Deterministic for a given jitter source, so it can be tested.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Delay before the first retry, in seconds.
    public var initialDelay: Double
    /// Growth factor per failed attempt.
    public var multiplier: Double
    /// Longest delay, in seconds.
    public var maximumDelay: Double
    /// Fraction of each delay that is randomised (0 = none, 1 = anywhere in [0, delay]).
    public var jitter: Double
    /// Give up after this many failed attempts in a row; nil = never.
    public var maximumAttempts: Int?

    /// A policy; by default it retries without limit after about 0.5 s, 1 s, 2 s … up to 30 s, each delay cut
    /// by up to 20 % at random. Traps unless `initialDelay` ≥ 0, `multiplier` ≥ 1, `maximumDelay` ≥
    /// `initialDelay` and `jitter` is within 0…1.
    public init(
        initialDelay: Double = 0.5,
        multiplier: Double = 2,
        maximumDelay: Double = 30,
        jitter: Double = 0.2,
        maximumAttempts: Int? = nil
    ) {
        precondition(initialDelay >= 0 && multiplier >= 1 && maximumDelay >= initialDelay, "invalid backoff")
        precondition((0...1).contains(jitter), "jitter is a fraction")
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumAttempts = maximumAttempts
    }

    /// Never reconnect.
    public static let never = ReconnectPolicy(maximumAttempts: 0)

    /// The delay before retry number `attempt` (1 = the first retry), or nil when the policy gives up.
    /// `random` is a number in [0, 1).
    public func delay(beforeAttempt attempt: Int, random: Double) -> Double? {
        precondition(attempt >= 1, "attempts count from 1")
        if let maximumAttempts, attempt > maximumAttempts { return nil }
        var base = initialDelay
        for _ in 1..<attempt {
            base *= multiplier
            if base >= maximumDelay { break }
        }
        base = min(base, maximumDelay)
        return base * (1 - jitter) + base * jitter * random
    }
}
