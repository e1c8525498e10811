import Glibc

/// A lock and a condition whose timed wait runs on the monotonic clock. `NSCondition`'s runs on the
/// wall clock: a clock set back while the journal writer waits for its next commit would hold every
/// commit for as long as the clock went back.
final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Seconds on the monotonic clock, from an arbitrary start: for intervals, never for dates.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// Wakes one waiter (call it holding the lock).
    func signal() { pthread_cond_signal(condition) }

    /// Waits for a signal, holding the lock again on return (it may return without one: check again).
    func wait() { pthread_cond_wait(condition, mutex) }

    /// `wait()` for at most `seconds` of elapsed time, however the wall clock is set meanwhile.
    func wait(seconds: Double) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = deadline.tv_nsec + Int((max(0, seconds) * 1e9).rounded())
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        _ = pthread_cond_timedwait(condition, mutex, &deadline)
    }
}
