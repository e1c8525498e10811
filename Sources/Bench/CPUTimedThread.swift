import Coordination
import Dispatch
import Glibc
import Synchronization

/// `body` on a thread of its own, and that thread's CPU time for it (`CLOCK_THREAD_CPUTIME_ID`): the
/// sending side of a throughput run (to say which side of a link a slower rate comes from), or a bare
/// client whose CPU per round trip is compared.
final class CPUTimedThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let nanoseconds = Atomic<UInt64>(0)

    /// Starts `body` at once on a thread named `name` (what perf and top show).
    init(name: String, _ body: @escaping @Sendable () -> Void) {
        Threads.start(name: name) { [self] in
            let before = clockNanoseconds(CLOCK_THREAD_CPUTIME_ID)
            body()
            nanoseconds.store(clockNanoseconds(CLOCK_THREAD_CPUTIME_ID) - before, ordering: .releasing)
            finished.signal()
        }
    }

    /// Waits for `body` to return; its CPU nanoseconds.
    func cpu() -> UInt64 {
        finished.wait()
        return nanoseconds.load(ordering: .acquiring)
    }
}
