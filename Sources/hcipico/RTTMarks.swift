import BLEDiagnostics
import Synchronization

/// The process CPU time and the wall clock read at the start and the end of the timed round trips
/// (on the reader thread, by `GATTEchoProbe`'s boundaries callback).
final class RTTMarks: Sendable {
    private let marks = Mutex<
        (begin: (ProcessCPUTime, ContinuousClock.Instant)?, end: (ProcessCPUTime, ContinuousClock.Instant)?)
    >((nil, nil))

    func record(_ begin: Bool) {
        let now = (ProcessCPUTime.now(), ContinuousClock.now)
        marks.withLock { if begin { $0.begin = now } else { $0.end = now } }
    }

    /// CPU time before and after, and the wall time between, once both were recorded.
    func measured() throws -> (ProcessCPUTime, ProcessCPUTime, Duration) {
        let (begin, end) = marks.withLock { ($0.begin, $0.end) }
        guard let begin, let end else {
            StandardError.report("the timed round trips did not report their start and end")
            throw ExitStatus.failure.exitCode
        }
        return (begin.0, end.0, end.1 - begin.1)
    }
}
