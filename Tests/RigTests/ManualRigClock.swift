import Foundation
import RigCore
import Synchronization

/// A rig clock that moves only when the test says: sleepers wake when `advance` passes their deadline.
final class ManualRigClock: RigClock {
    private struct Sleeper {
        let id: Int
        let deadline: Double
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let state: Mutex<(now: Double, nextID: Int, sleepers: [Sleeper])>

    init(now: Double = 1_795_600_000) {
        state = Mutex((now, 0, []))
    }

    func now() -> Double { state.withLock { $0.now } }

    /// How many tasks are sleeping now.
    var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until.
    var nextDeadline: Double? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    func sleep(until deadline: Double) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due = state.withLock { state -> Bool in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if due { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves the time to `time` and wakes every sleeper due by then.
    func advance(to time: Double) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = max(state.now, time)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
