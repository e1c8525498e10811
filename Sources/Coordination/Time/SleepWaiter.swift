import Synchronization

/// One sleeping task's continuation, resumed once: by its wake, or by its cancellation.
final class SleepWaiter: Sendable {
    private let continuation = Mutex<CheckedContinuation<Void, any Error>?>(nil)
    /// The clock's id for the wake this sleep waits for, once kept (`ManualClock` removes it on cancellation).
    let entry = Mutex<Int?>(nil)

    /// Keeps the continuation to resume.
    func hold(_ continuation: CheckedContinuation<Void, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// Ends the sleep, unless it has ended already.
    func wake() { continuation.withLock { $0.take() }?.resume() }

    /// Ends the sleep with `CancellationError`, unless it has ended already.
    func cancel() { continuation.withLock { $0.take() }?.resume(throwing: CancellationError()) }
}

/// Set once, from any thread: a blocked thread's wake.
final class WakeFlag: Sendable {
    private let raised = Atomic(false)

    func raise() { raised.store(true, ordering: .releasing) }
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}
