public import BLEDiagnostics
public import BLEHost
public import DeviceLinks
public import Logging

/// `--link` and `--stats` over one run: the tuning, started beside the run once its data flows, and
/// what `--stats` prints at the end: the link parameters in force (from the tuning results and what
/// the host knows) and the notification inter-arrival percentiles.
public final class LinkRunStatistics: Sendable {
    private let tuning: LinkTuningBeside
    /// The notifications' arrival times (nil without `--stats`).
    public let arrivals: NotificationArrivals?

    /// The tuning `request` asks for on `link` (nil: none), and the `arrivals` to report on.
    public init(link: DeviceLink, request: LinkTuningRequest?, arrivals: NotificationArrivals?) {
        // `--stats` prints the tuning's report, not the text a rig's provenance reads: no base for it.
        tuning = LinkTuningBeside(link: link, request: request, base: "")
        self.arrivals = arrivals
    }

    /// Starts the tuning `--link` asked for (once; later calls do nothing).
    public func startTuning() { tuning.start() }

    /// Starts the tuning if the run never did, waits for it to end (its steps are bounded by their
    /// timeouts), then says the statistics (when `--stats` was given) to `logger`. Call it before
    /// closing the link.
    public func finish(_ link: DeviceLink, logger: Logger) async {
        tuning.start()
        let report = await tuning.report()
        guard let arrivals else { return }
        for line in lines(link, arrivals: arrivals, report: report) { logger.notice("\(line)") }
    }

    /// The statistics as `stats: …` lines: the link's parameters (from the tuning's report where it has
    /// them) and the inter-arrival percentiles.
    public func lines(_ link: DeviceLink, arrivals: NotificationArrivals, report: LinkTuningReport?) -> [String] {
        var connection: String
        var dataLength: String
        var phy: String
        switch link.path {
        case .simulator(let kind, _):
            let none = "n/a (sim:\(kind.rawValue): no radio link)"
            (connection, dataLength, phy) = (none, none, none)
        case .kernel:
            let hidden = "n/a (the kernel chose it and does not tell; use --link to set and read it)"
            (connection, dataLength, phy) = (hidden, hidden, hidden)
        case .host(_, let hci, _):
            let known = hci.linkState
            connection = "\(known.connection)"
            dataLength = known.dataLength.map { "\($0)" } ?? "n/a (no LE Data Length Change seen)"
            phy = known.phy.map { "\($0)" } ?? "1M (no LE PHY Update Complete seen)"
        }
        if let report {
            if let value = report.connection.value { connection = "\(value)" }
            if let value = report.dataLength.value { dataLength = "\(value)" }
            if let value = report.phy.value { phy = "\(value)" }
        }
        var lines = [
            "stats: connection \(connection)",
            "stats: data length \(dataLength)",
            "stats: PHY \(phy)",
            "stats: ATT MTU \(link.client.mtu)",
        ]
        if let summary = arrivals.summary {
            lines.append(
                "stats: notifications \(summary.arrivals), inter-arrival p50 \(Self.ms(summary.p50)) p90 \(Self.ms(summary.p90)) p99 \(Self.ms(summary.p99)) max \(Self.ms(summary.max)) ms"
            )
        } else {
            lines.append(
                "stats: notifications \(arrivals.summary?.arrivals ?? 0) (fewer than two: no inter-arrival times)"
            )
        }
        return lines
    }

    /// A duration in milliseconds with three decimals.
    public static func ms(_ duration: Duration) -> String {
        let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let fraction = String(micros % 1000)
        return "\(micros / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
