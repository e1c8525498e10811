import Coordination
import Synchronization

/// The process CPU time and the wall clock read at the start and the end of the timed round trips
/// (on the reader thread, by `GATTEchoProbe`'s boundaries callback), and each thread's CPU time read
/// outside them (before the start, after the end), so that reading it is not in the process's figure.
final class EchoTimingMarks: Sendable {
    typealias Mark = (threads: ThreadCPUTimes, cpu: ProcessCPUTime, at: ContinuousClock.Instant)

    /// What was measured between the marks.
    struct Measured {
        let cpuBefore: ProcessCPUTime
        let cpuAfter: ProcessCPUTime
        let wall: Duration
        /// CPU nanoseconds by thread name, most first (a little more than the window: see the type).
        let threads: [(name: String, nanoseconds: Int64)]
    }

    private let marks = Mutex<(begin: Mark?, end: Mark?)>((nil, nil))

    func record(_ begin: Bool) {
        if begin {
            let threads = ThreadCPUTimes.now()
            let now = (threads: threads, cpu: ProcessCPUTime.now(), at: ContinuousClock.now)
            marks.withLock { $0.begin = now }
        } else {
            let (cpu, at) = (ProcessCPUTime.now(), ContinuousClock.now)
            let now = (threads: ThreadCPUTimes.now(), cpu: cpu, at: at)
            marks.withLock { $0.end = now }
        }
    }

    /// The figures, once both marks were recorded.
    func measured() throws(EchoTimingError) -> Measured {
        let (begin, end) = marks.withLock { ($0.begin, $0.end) }
        guard let begin, let end else { throw .unmarked }
        return Measured(
            cpuBefore: begin.cpu,
            cpuAfter: end.cpu,
            wall: end.at - begin.at,
            threads: end.threads.since(begin.threads)
        )
    }
}
