internal import Glibc

/// Waits with `poll(2)` for `events` on `fd` or for `cancel` (an eventfd) to become readable.
enum Poll {
    enum Outcome: Equatable {
        case ready(revents: Int16)
        case cancelled
        case timedOut
    }

    /// Waits at most `timeout` (nil: forever). `EINTR` is retried with the time that is left.
    static func wait(
        fd: CInt,
        events: Int16,
        cancel: CInt?,
        timeout: Duration?
    ) throws(SystemError) -> Outcome {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now.advanced(by: $0) }
        var fds = [
            pollfd(fd: fd, events: events, revents: 0), pollfd(fd: cancel ?? -1, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            var milliseconds: CInt = -1
            if let deadline {
                let left = clock.now.duration(to: deadline)
                let (seconds, attoseconds) = left.components
                milliseconds =
                    left <= .zero
                    ? 0 : CInt(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            }
            let count = fds.count
            let result = try fds.withUnsafeMutableBufferPointer { buffer throws(SystemError) in
                try retryingSyscall(.poll) { system_poll(buffer.baseAddress!, count, milliseconds) }
            }
            guard case .processed(let ready) = result else { continue }
            if ready == 0 { return .timedOut }
            if cancel != nil, fds[1].revents != 0 { return .cancelled }
            if fds[0].revents != 0 { return .ready(revents: fds[0].revents) }
        }
    }
}
