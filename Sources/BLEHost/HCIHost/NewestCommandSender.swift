import Synchronization

/// Sends, off the reader thread, the commands the receive path owes the controller for one purpose on
/// one link (the LE Connection Update a peer's request asks for, the reply to a remote parameter
/// request): one at a time, and of those that arrive while one is on its way only the newest, since it
/// supersedes the others. A peer or a controller that floods requests gets its latest answered and the
/// rest counted, never a task per request.
final class NewestCommandSender: Sendable {
    private struct State {
        var busy = false
        var next: (@Sendable () async -> Void)?
    }
    private let state = Mutex(State())

    /// Nothing on its way and nothing waiting.
    var isIdle: Bool { state.withLock { !$0.busy && $0.next == nil } }

    /// Sends `send` now, or after the one on its way in place of any still waiting. Returns true when
    /// it replaced one that was waiting (superseded, never sent).
    func submit(_ send: @escaping @Sendable () async -> Void) -> Bool {
        let (start, replaced) = state.withLock { state -> (Bool, Bool) in
            guard !state.busy else {
                defer { state.next = send }
                return (false, state.next != nil)
            }
            state.busy = true
            return (true, false)
        }
        if start { Task { await self.run(send) } }
        return replaced
    }

    private func run(_ first: @escaping @Sendable () async -> Void) async {
        var current = first
        while true {
            await current()
            let next = state.withLock { state -> (@Sendable () async -> Void)? in
                defer { state.next = nil }
                if state.next == nil { state.busy = false }
                return state.next
            }
            guard let next else { return }
            current = next
        }
    }
}
