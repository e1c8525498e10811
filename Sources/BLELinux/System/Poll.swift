internal import Glibc

/// Waits with `poll(2)` for `events` on `fd` or for `cancel` (an eventfd) to become readable.
enum Poll {
    enum Outcome: Equatable {
        case ready(revents: Int16)
        case cancelled
        case timedOut
    }

    /// Waits at most `timeout` (nil: forever). After `EINTR` the wait goes on with the time that is left.
    static func wait(
        fd: CInt,
        events: Int16,
        cancel: CInt?,
        timeout: Duration?
    ) throws(SystemError) -> Outcome {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now.advanced(by: $0) }
        var fds = [
            pollfd(fd: fd, events: events, revents: 0),
            pollfd(fd: cancel ?? -1, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let count = fds.count
            let result = try fds.withUnsafeMutableBufferPointer { buffer throws(SystemError) in
                // The timeout is computed inside the call so that a retry after EINTR uses what is left.
                try retryingSyscall(.poll) {
                    system_poll(buffer.baseAddress!, count, deadline.map { milliseconds(until: $0, clock) } ?? -1)
                }
            }
            guard case .processed(let ready) = result else { continue }
            if ready == 0 { return .timedOut }
            if cancel != nil, fds[1].revents != 0 { return .cancelled }
            if fds[0].revents != 0 { return .ready(revents: fds[0].revents) }
        }
    }

    /// Whole milliseconds from now to `deadline`, rounded up (0 once it has passed).
    static func milliseconds(until deadline: ContinuousClock.Instant, _ clock: ContinuousClock) -> CInt {
        let left = clock.now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return CInt(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
