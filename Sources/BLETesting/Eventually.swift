#if canImport(Glibc)
import Glibc
#endif

/// Waits (bounded) until `condition` holds: polls every `interval` and returns as soon as it holds. A
/// test asserts on the result, so a condition that never holds fails the test. Every bounded wait of
/// the tests and their helpers goes through this function or `eventuallyBlocking`.
///
/// It gives up only once `timeout` has passed *and* it has polled as often as it would have in that
/// time on an idle machine. The whole suite in parallel on two cores can keep every task waiting for a
/// thread for tens of seconds; the work the condition waits for is held up just as long, so time alone
/// would fail a test that is merely waiting its turn.
public func eventually(
    _ timeout: Duration = .seconds(10),
    every interval: Duration = .milliseconds(2),
    _ condition: () -> Bool
) async -> Bool {
    var bound = PollBound(timeout: timeout, interval: interval)
    while bound.continues() {
        if condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return condition()
}

/// `eventually` for synchronous tests and helpers: the same bound, polled every `interval` by blocking
/// the calling thread (never call it from a task: it holds one of the few pool threads).
public func eventuallyBlocking(
    _ timeout: Duration = .seconds(10),
    every interval: Duration = .milliseconds(1),
    _ condition: () -> Bool
) -> Bool {
    var bound = PollBound(timeout: timeout, interval: interval)
    let pause = useconds_t(max(1, interval / .microseconds(1)))
    while bound.continues() {
        if condition() { return true }
        usleep(pause)
    }
    return condition()
}

/// The bound of a polling wait: `timeout` of time and as many polls as fit in it.
struct PollBound {
    private let deadline: ContinuousClock.Instant
    private let polls: Int
    private var polled = 0

    init(timeout: Duration, interval: Duration) {
        deadline = ContinuousClock.now + timeout
        polls = max(1, Int(timeout / interval))
    }

    /// Whether to poll again (counting this poll).
    mutating func continues() -> Bool {
        polled += 1
        return polled <= polls || ContinuousClock.now < deadline
    }
}
