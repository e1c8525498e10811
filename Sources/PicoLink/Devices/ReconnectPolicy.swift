/// When to try again after a link is lost or a connection attempt failed: exponential backoff with a
/// cap, jitter and an optional limit on retries. Deterministic for a given jitter source, so it can be
/// tested. A retry is every attempt after the first connection attempt, and every reconnect after a
/// lost link: retry 1 waits about `initialDelay`, each later one `multiplier` times longer.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Delay before the first retry, in seconds.
    public var initialDelay: Double
    /// Growth factor per failed attempt.
    public var multiplier: Double
    /// Longest delay, in seconds.
    public var maximumDelay: Double
    /// Fraction of each delay that is randomised (0 = none, 1 = anywhere in [0, delay]).
    public var jitter: Double
    /// How many retries in a row may fail before giving up (0: never retry); nil = retry forever.
    public var maximumRetries: Int?

    /// A policy; by default it retries without limit after about 0.5 s, 1 s, 2 s … up to 30 s, each delay cut
    /// by up to 20 % at random. Traps unless `initialDelay` ≥ 0, `multiplier` ≥ 1, `maximumDelay` ≥
    /// `initialDelay` and `jitter` is within 0…1.
    public init(
        initialDelay: Double = 0.5,
        multiplier: Double = 2,
        maximumDelay: Double = 30,
        jitter: Double = 0.2,
        maximumRetries: Int? = nil
    ) {
        precondition(initialDelay >= 0 && multiplier >= 1 && maximumDelay >= initialDelay, "invalid backoff")
        precondition((0...1).contains(jitter), "jitter is a fraction")
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumRetries = maximumRetries
    }

    /// Never reconnect.
    public static let never = ReconnectPolicy(maximumRetries: 0)

    /// The delay before retry number `retry` (1 = the first), or nil when the policy gives up.
    /// `random` is a number in [0, 1).
    public func delay(beforeRetry retry: Int, random: Double) -> Double? {
        precondition(retry >= 1, "retries count from 1")
        if let maximumRetries, retry > maximumRetries { return nil }
        var base = initialDelay
        for _ in 1..<retry {
            base *= multiplier
            if base >= maximumDelay { break }
        }
        base = min(base, maximumDelay)
        return base * (1 - jitter) + base * jitter * random
    }
}
