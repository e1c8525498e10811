import BLEHost
import BLELinux
import Logging
import Synchronization

/// hcipico's own HCI hosts for a rig, one per user-space transport (`user:hciN`, `serial:…`,
/// `tcp:…`), shared by every device on that controller: one H4 link cannot carry two hosts. A host
/// whose transport went away (a controller reset, a TCP peer restarted) is replaced by a new one,
/// started and initialised again, at the next connect. A controller that stops answering commands is
/// reset the same way: its host is shut down, and the next connect opens the transport again, sends
/// HCI Reset and initialises the controller from scratch.
final class SharedHosts: Sendable {
    private let hosts = Mutex<[TransportSpec: HCIHost]>([:])
    /// Controller resets per transport, for the rig's summary.
    private let resets = Mutex<[TransportSpec: Int]>([:])
    /// Serializes host creation (a connect waiting for another's `start`).
    private let gate = AsyncGate()
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// How many times each controller was reset because it stopped answering.
    var resetCounts: [(transport: TransportSpec, resets: Int)] {
        resets.withLock { counts in counts.map { ($0.key, $0.value) }.sorted { "\($0.transport)" < "\($1.transport)" } }
    }

    /// Drops `host` (when it is still the one for `transport`): every link on it ends, and the next
    /// connect starts a new host, which resets and initialises the controller.
    func reset(_ transport: TransportSpec, host: HCIHost, because error: HCIHostError) async {
        let current = hosts.withLock { hosts -> Bool in
            guard hosts[transport] === host else { return false }
            hosts[transport] = nil
            return true
        }
        guard current else { return }
        let count = resets.withLock { counts -> Int in
            counts[transport, default: 0] += 1
            return counts[transport, default: 0]
        }
        logger.warning(
            "controller on \(transport) stopped answering (\(error)); resetting and initialising it again (reset \(count))"
        )
        await host.shutdown()
    }

    /// The started host for `transport`, made and started on first use or after its transport closed.
    func host(for transport: TransportSpec) async throws -> HCIHost {
        await gate.acquire()
        defer { gate.release() }
        if let host = hosts.withLock({ $0[transport] }), host.closeReason == nil { return host }
        let hci = try transport.openHCITransport()
        let host = HCIHost(transport: hci)
        do {
            _ = try await host.start()
        } catch {
            await host.shutdown()
            throw error
        }
        hosts.withLock { $0[transport] = host }
        return host
    }

    /// Disconnects every link and closes every transport.
    func shutdown() async {
        let all = hosts.withLock { hosts in
            defer { hosts.removeAll() }
            return Array(hosts.values)
        }
        for host in all { await host.shutdown() }
    }
}

/// One holder at a time, waiting without blocking a thread.
final class AsyncGate: Sendable {
    private let state = Mutex<(held: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if !state.held {
                    state.held = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
