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
