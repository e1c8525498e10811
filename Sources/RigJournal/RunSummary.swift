/// One run as `hcipico runs` lists it.
public struct RunSummary: Sendable, Equatable {
    /// The journal's row id (what `--run` takes).
    public var id: Int64
    public var uuid: String
    public var device: String
    /// The run's number among its device's runs (as the provenance's `device_run`).
    public var deviceRun: Int = 0
    public var title: String
    public var scriptName: String
    /// Seconds since the Unix epoch.
    public var startedAt: Double
    public var endedAt: Double?
    /// Committed packages.
    public var packages: Int
    /// `running`, `complete` or `incomplete`.
    public var state: String
    public var reason: String?
    /// Packages lost to a bounded buffer's overflow before they reached the journal.
    public var overflowed: Int
    /// The RSSI read as the run started, in dBm, where the path could say.
    public var rssi: Int?
    /// When the run's packages were pruned from the journal after being forwarded (nil: never).
    public var prunedAt: Double? = nil
    /// What became of the cell after a run that did not end normally (`cell off confirmed at …`,
    /// `cell state unknown: …`); nil after a normal end.
    public var cell: String? = nil
    /// What the run's connection found first: a script left running by an earlier host, if any.
    public var foundAtConnect: String? = nil

    /// Seconds from start to end (nil while running).
    public var duration: Double? { endedAt.map { $0 - startedAt } }
}

/// Which runs to select: every field narrows the selection; the default selects all.
public struct RunFilter: Sendable, Equatable {
    public var ids: [Int64]?
    public var devices: [String]?
    /// Runs that started at or after this time (seconds since the Unix epoch).
    public var since: Double?
    /// Runs that started before this time.
    public var until: Double?
    /// Only the newest this many of the runs selected (still listed oldest first).
    public var latest: Int?
    /// Only runs recorded before this one (a smaller row id): the next page of older runs.
    public var before: Int64?

    public init(
        ids: [Int64]? = nil,
        devices: [String]? = nil,
        since: Double? = nil,
        until: Double? = nil,
        latest: Int? = nil,
        before: Int64? = nil
    ) {
        self.ids = ids
        self.devices = devices
        self.since = since
        self.until = until
        self.latest = latest.map { max(0, $0) }
        self.before = before
    }
}
