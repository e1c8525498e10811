import Synchronization

/// The first of several outcomes (an operation's result, a timeout) to arrive, for one waiter.
final class Settlement: Sendable {
    private let state = Mutex<(result: Result<Void, any Error>?, waiter: CheckedContinuation<Void, any Error>?)>(
        (nil, nil)
    )

    /// Settles with `result` unless something settled first.
    func settle(_ result: Result<Void, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    /// Returns or throws as the first settlement says.
    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let settled = state.withLock { state -> Result<Void, any Error>? in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let settled { continuation.resume(with: settled) }
        }
    }
}
