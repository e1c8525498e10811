#if canImport(Glibc)
import Glibc
#endif

/// Waits (bounded) until `condition` holds: polls every 2 ms and returns as soon as it holds. The
/// bound is generous because the whole suite in parallel on two cores can keep a task waiting for
/// seconds; a test asserts on the result, so a condition that never holds fails the test.
public func eventually(_ timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// `eventually` for synchronous tests and helpers: the same bound, polled every millisecond by
/// blocking the calling thread (never call it from a task: it holds one of the few pool threads).
public func eventuallyBlocking(_ timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}
