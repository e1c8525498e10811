import Foundation
import Synchronization

/// SIGINT deliveries so far; the handler only increments it (lock-free, async-signal-safe).
private let interruptCount = Atomic<Int>(0)

/// Ctrl-C as an event: a SIGINT handler counts the signal and a poller calls `handler` (on a task, every
/// 50 ms at most), so that a run can be aborted cleanly (`Z`) and its data kept. (A dispatch signal source
/// is not used: on Linux it relies on the signal being blocked in every thread, which a process with the
/// Swift runtime's threads cannot promise.)
final class InterruptSignal {
    private let poller: Task<Void, Never>

    init(_ handler: @escaping @Sendable () -> Void) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        signal(SIGINT) { _ in interruptCount.add(1, ordering: .relaxed) }
        let seen = interruptCount.load(ordering: .relaxed)
        poller = Task.detached {
            var handled = seen
            while !Task.isCancelled {
                let now = interruptCount.load(ordering: .relaxed)
                if now != handled {
                    handled = now
                    handler()
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    func cancel() {
        poller.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
