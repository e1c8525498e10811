import BLEHost
import BLELinux
import Logging

/// An open link to one device, whatever reaches it: a simulator in this process, the kernel's L2CAP LE
/// socket, or hcipico's own HCI host. Everything talks to the `client`; `path` says what carries it
/// (for link tuning, statistics and pairing checks). `close()` ends it, once.
public struct DeviceLink: Sendable {
    /// The GATT client on the link, its MTU exchanged.
    public let client: GATTClient
    /// The device as it was named: an address or `sim:KIND`.
    public let name: String
    /// What carries the link.
    public let path: Path
    /// The btsnoop capture of the link, when one was asked for.
    public let capture: BTSnoopWriter?
    /// The security of a link on hcipico's own host, when some was asked for.
    public let security: HostLinkSecurity?
    /// Where the link's reports go.
    public let logger: Logger
    private let drops: DroppedPDUReport

    init(
        client: GATTClient,
        name: String,
        path: Path,
        logger: Logger,
        capture: BTSnoopWriter? = nil,
        security: HostLinkSecurity? = nil
    ) {
        self.client = client
        self.name = name
        self.path = path
        self.logger = logger
        self.capture = capture
        self.security = security
        drops = DroppedPDUReport(device: name, logger: logger)
        drops.install(on: client.bearer)
    }

    /// What carries a link.
    public enum Path: Sendable {
        /// A simulated peripheral in this process; `close` stops it.
        case simulator(SimulatorKind, close: @Sendable () -> Void)
        /// The kernel's L2CAP LE socket on an ACL link the kernel owns; with security asked for, the agent
        /// that answers the kernel's pairing questions for this device while the link is open.
        case kernel(L2CAPATTSocket, adapter: HCIAdapterName?, agent: KernelPairingAgent?)
        /// hcipico's own HCI host on a controller it drives; `shared` when other links use the host too
        /// (closing the link then disconnects this device only, instead of shutting the host down).
        case host(HCIHost, HCIConnection, shared: Bool)
    }

    /// Ends the link: on the kernel path it first waits (up to 5 s) for a pairing under way to report its
    /// keys; then the ATT bearer, then the connection (a host of its own is shut down), then the capture.
    public func close() async {
        if case .kernel(_, _, let agent?) = path {
            // A pairing still distributing its keys over the link: wait for them, or the bond is not kept.
            await agent.settle(upTo: .seconds(5))
        }
        client.bearer.close()
        drops.finish(dropped: client.bearer.droppedPDUCount)
        switch path {
        case .simulator(_, let close): close()
        case .kernel(_, _, let agent): agent?.stop()
        case .host(_, let connection, shared: true): try? await connection.disconnect()
        case .host(let host, _, shared: false): await host.shutdown()
        }
        capture?.close()
    }

    /// Applies `request` over whichever path carries the link: hcipico's own host, or a raw HCI socket
    /// on the kernel's adapter. Logs one `link …` line per step at notice level; a refusal is a
    /// warning, never a failure. Nil when nothing could be tried (simulator, no raw socket).
    public func tune(_ request: LinkTuningRequest) async -> LinkTuningReport? {
        let report: LinkTuningReport
        switch path {
        case .simulator(let kind, _):
            logger.notice("link: sim:\(kind.rawValue) has no radio link; --link \(request.name) not applied")
            return nil
        case .kernel(let socket, let adapter, _):
            let target: KernelLinkTuning
            do {
                target = try KernelLinkTuning.open(for: socket, adapter: adapter)
            } catch {
                logger.warning("link: cannot tune over the kernel path: \(error.message)")
                return nil
            }
            report = await LinkTuner().apply(request, to: target)
            target.close()
        case .host(_, let connection, _):
            report = await LinkTuner().apply(request, to: connection)
        }
        for line in report.lines { logger.notice("\(line)") }
        return report
    }

    /// The link's RSSI now (HCI Read RSSI through whichever path carries it); nil for a simulator or
    /// when the controller cannot say.
    public func readRSSI() async -> Int? {
        switch path {
        case .simulator: return nil
        case .kernel(let socket, let adapter, _):
            guard let target = try? KernelLinkTuning.open(for: socket, adapter: adapter) else { return nil }
            defer { target.close() }
            return await target.readRSSI()
        case .host(_, let connection, _):
            return await connection.readRSSI()
        }
    }
}
