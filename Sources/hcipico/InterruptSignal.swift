import Foundation
import Synchronization

/// SIGINT (and SIGTERM, when asked for) deliveries so far; the handler only increments it (lock-free,
/// async-signal-safe).
private let interruptCount = Atomic<Int>(0)

/// Ctrl-C as an event: a SIGINT handler counts the signal and a poller calls `handler` (on a task, every
/// 50 ms at most), so that a run can be aborted cleanly (`Z`) and its data kept. (A dispatch signal source
/// is not used: on Linux it relies on the signal being blocked in every thread, which a process with the
/// Swift runtime's threads cannot promise.)
final class InterruptSignal {
    private let poller: Task<Void, Never>
    private let signals: [Int32]

    /// Calls `handler` for each delivery of one of `signals` (SIGINT, or SIGINT and SIGTERM).
    init(signals: [Int32] = [SIGINT], _ handler: @escaping @Sendable () -> Void) {
        self.signals = signals
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for number in signals { signal(number) { _ in interruptCount.add(1, ordering: .relaxed) } }
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
        for number in signals { signal(number, SIG_DFL) }
    }
}
