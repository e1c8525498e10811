import Coordination
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The one-shot programs' stop path: the statuses a stop ends a program with, and cleanup that may not
/// hold the exit up.
@Suite struct StopPathTests {
    @Test func aStopEndsWithTheStatusAShellReportsForIt() {
        #expect(StopReason.signal(SIGINT).exitCode == 130)
        #expect(StopReason.signal(SIGTERM).exitCode == 143)
        #expect(StopReason.signal(SIGHUP).exitCode == 129)
        #expect(StopReason.outputClosed.exitCode == 141)
        #expect(StopReason.signal(SIGUSR1).exitCode == 130)
        #expect(StopReason.signal(SIGTERM).description == "interrupted (SIGTERM)")
    }

    /// Cleanup that never finishes is given its bound and no more, and is cancelled then.
    @Test func boundedCleanupIsCancelledAtItsBound() async {
        let cancelled = Latch<Void>()
        await Shutdown.bounded(.milliseconds(50)) {
            await withTaskCancellationHandler {
                _ = await Latch<Void>().waitUnlessCancelled()
            } onCancel: {
                cancelled.settle(())
            }
        }
        // The body never ends by itself: only the bound cancels it, and `bounded` has returned.
        await cancelled.wait()
    }

    /// Cleanup that finishes is waited for, even when the caller is already cancelled (a stop).
    @Test func boundedCleanupRunsWhenTheCallerIsCancelled() async {
        let done = Latch<Void>()
        let caller = Task {
            await Shutdown.bounded(.seconds(30)) {
                await Task.yield()
                done.settle(())
            }
        }
        caller.cancel()
        await caller.value
        #expect(done.value != nil)
    }
}
