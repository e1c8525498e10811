import BLEHost
import BLELinux
import Coordination
import Logging
import Synchronization

/// hcipico's own HCI hosts for a rig, one per user-space transport (`user:hciN`, `serial:…`,
/// `tcp:…`), shared by every device on that controller: one H4 link cannot carry two hosts. A host
/// whose transport went away (a controller reset, a TCP peer restarted) is replaced by a new one,
/// started and initialised again, at the next connect. A controller that stops answering commands is
/// reset the same way: its host is shut down, and the next connect opens the transport again, sends
/// HCI Reset and initialises the controller from scratch.
public final class SharedHosts: Sendable {
    private let hosts = Mutex<[TransportSpec: HCIHost]>([:])
    /// Controller resets per transport, for the rig's summary.
    private let resets = Mutex<[TransportSpec: Int]>([:])
    /// Serializes host creation (a connect waiting for another's `start`).
    private let gate = AsyncGate()
    private let logger: Logger

    /// Hosts that log their resets to `logger`.
    public init(logger: Logger) { self.logger = logger }

    /// How many times each controller was reset because it stopped answering.
    public var resetCounts: [(transport: TransportSpec, resets: Int)] {
        resets.withLock { counts in counts.map { ($0.key, $0.value) }.sorted { "\($0.transport)" < "\($1.transport)" } }
    }

    /// Drops `host` (when it is still the one for `transport`): every link on it ends, and the next
    /// connect starts a new host, which resets and initialises the controller.
    public func reset(_ transport: TransportSpec, host: HCIHost, because error: HCIHostError) async {
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
    public func host(for transport: TransportSpec) async throws(LinkOpenError) -> HCIHost {
        await gate.acquire()
        defer { gate.release() }
        if let host = hosts.withLock({ $0[transport] }), host.closeReason == nil { return host }
        let host = try await Self.start(transport, capture: nil, logger: logger)
        hosts.withLock { $0[transport] = host }
        return host
    }

    /// A new host on `transport`, started (the controller reset and initialised); with `capture`, every
    /// HCI packet is captured there.
    static func start(
        _ transport: TransportSpec,
        capture: BTSnoopWriter?,
        logger: Logger
    ) async throws(LinkOpenError) -> HCIHost {
        let hci: any HCITransport
        do {
            hci = try transport.openHCITransport()
        } catch {
            throw LinkOpenError(error.message, cause: .system(error))
        }
        let host = HCIHost(transport: capture.map { BTSnoopCaptureTransport(wrapping: hci, into: $0) } ?? hci)
        do {
            let controller = try await host.start()
            logger.debug(
                "\(transport): controller \(controller.publicAddress), HCI version \(controller.hciVersion), manufacturer 0x\(String(controller.manufacturer, radix: 16))"
            )
            return host
        } catch {
            await host.shutdown()
            throw LinkOpenError("\(transport): \(error)", cause: .host(error))
        }
    }

    /// Disconnects every link and closes every transport.
    public func shutdown() async {
        let all = hosts.withLock { hosts in
            defer { hosts.removeAll() }
            return Array(hosts.values)
        }
        for host in all { await host.shutdown() }
    }
}
