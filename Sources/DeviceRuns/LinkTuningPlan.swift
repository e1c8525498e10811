import BLEDiagnostics
public import BLEHost
public import DeviceLinks

/// `--link` and `--stats` as parsed.
public struct LinkTuningPlan: Sendable {
    /// The tuning asked for (`--link`; nil: none).
    public let request: LinkTuningRequest?
    /// Whether the statistics are reported at the end (`--stats`).
    public let stats: Bool

    /// A plan to tune as `request` says and report when `stats` is true.
    public init(request: LinkTuningRequest?, stats: Bool) {
        self.request = request
        self.stats = stats
    }

    /// Prepares tuning `link` as asked (it starts with `LinkRunStatistics.startTuning()`, once the data
    /// flows, so that neither the tuning's commands nor a controller slow to answer them delay the first
    /// sample) and starts the statistics when asked; nil when neither option was given.
    public func apply(to link: DeviceLink) -> LinkRunStatistics? {
        guard request != nil || stats else { return nil }
        let arrivals = NotificationArrivals()
        if stats { link.client.observeNotifications(arrivals) }
        return LinkRunStatistics(link: link, request: request, arrivals: stats ? arrivals : nil)
    }
}
