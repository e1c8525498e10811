import Synchronization

/// How the status server's start turned out: listening on a port, or failed to bind. The first of the
/// two settles it; `wait` returns it.
final class ServerStart: Sendable {
    enum Outcome: Sendable {
        case listening(port: Int)
        case failed(String)
    }

    private let state = Mutex<(outcome: Outcome?, waiter: CheckedContinuation<Outcome, Never>?)>((nil, nil))

    func settle(_ outcome: Outcome) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    func wait() async -> Outcome {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> Outcome? in
                if state.outcome == nil { state.waiter = continuation }
                return state.outcome
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }
}
