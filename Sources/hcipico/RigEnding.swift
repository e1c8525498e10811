import Synchronization

/// Why `hcipico rig` ends: the first of a signal, `--for` running out, every schedule done, or the
/// journal failing.
final class RigEnding: Sendable {
    enum Why: Sendable, CustomStringConvertible {
        case signal(StopReason)
        case duration
        case schedulesDone
        case journalFailed(String)

        var description: String {
            switch self {
            case .signal(let reason): "\(reason)"
            case .duration: "--for elapsed"
            case .schedulesDone: "every schedule is done"
            case .journalFailed(let message): "the journal failed: \(message)"
            }
        }

        /// What an open run's end says.
        var runReason: String {
            switch self {
            case .signal(let reason): "stopped (\(reason))"
            case .duration, .schedulesDone: "stopped"
            case .journalFailed: "stopped: the journal failed"
            }
        }
    }

    private let state = Mutex<(why: Why?, waiter: CheckedContinuation<Why, Never>?)>((nil, nil))

    func end(_ why: Why) {
        let waiter = state.withLock { state -> CheckedContinuation<Why, Never>? in
            guard state.why == nil else { return nil }
            state.why = why
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: why)
    }

    func wait() async -> Why {
        await withCheckedContinuation { continuation in
            let already = state.withLock { state -> Why? in
                if state.why == nil { state.waiter = continuation }
                return state.why
            }
            if let already { continuation.resume(returning: already) }
        }
    }
}
