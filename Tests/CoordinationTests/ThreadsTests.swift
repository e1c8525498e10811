import Foundation
import Testing

@testable import Coordination

/// The one thread starter: a named detached thread; and the one blocking wait: a call on a thread of
/// its own, awaited, or given up at once when the waiting task is cancelled.
@Suite struct ThreadsTests {
    @Test func aStartedThreadRunsUnderItsName() async throws {
        let name = Latch<String>()
        #expect(
            Threads.start(name: "hcipico-test-thread-name") {
                let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                name.settle(comm.trimmingCharacters(in: .newlines))
            } == 0
        )
        // The kernel keeps 15 bytes of a thread's name.
        #expect(await name.wait() == "hcipico-test-th")
    }

    @Test func aBlockingCallsResultIsAwaited() async {
        let result = await Threads.blocking(name: "test-blocking") { () -> Int in
            usleep(20_000)
            return 42
        }
        #expect(result == 42)
    }

    @Test func cancellingTheWaiterGivesUpAtOnceAndTheCallEndsByItself() async {
        let began = Latch<Void>()
        let release = Latch<Void>()
        let callEnded = Latch<Void>()
        let waiting = Task {
            await Threads.blocking(name: "test-blocking") { () -> Int in
                began.settle(())
                // A read that nothing answers until the test says so.
                while release.value == nil { usleep(1_000) }
                callEnded.settle(())
                return 1
            }
        }
        await began.wait()
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(callEnded.value == nil)
        release.settle(())
        await callEnded.wait()
    }
}
