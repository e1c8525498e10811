/// One data package (`P` line) as the host received it, with where it stands in the run.
public struct PicoPackage: Sendable, Equatable {
    /// The device's name in this program (`sim`, an address, or a user-given label).
    public var device: String
    /// The run number on this device, from 1.
    public var run: Int
    /// The package number within the run, from 0.
    public var index: Int
    /// The measurement loop (`M…`) within the run, from 1.
    public var loop: Int
    /// The scan (`C…`) within an `nscans` loop, from 1; nil outside scans (see `scanNumber`).
    public var scan: Int?
    /// When the package's last byte reached the host, in seconds since the Unix epoch.
    public var hostTime: Double
    /// The package's values, in the order of the `P` line.
    public var values: [PicoValue]

    /// A package with every field given: a session builds them from the reply stream, decoders of saved
    /// runs and tests build their own.
    public init(
        device: String,
        run: Int,
        index: Int,
        loop: Int,
        scan: Int?,
        hostTime: Double,
        values: [PicoValue]
    ) {
        self.device = device
        self.run = run
        self.index = index
        self.loop = loop
        self.scan = scan
        self.hostTime = hostTime
        self.values = values
    }

    /// The scan as every output numbers it: from 1, and 1 for a package outside any `nscans` loop
    /// (a measurement loop without scans is one scan).
    public var scanNumber: Int { scan ?? 1 }

    /// The device's own clock, where the script sends it (`timer_get` into an `eb` variable), in seconds.
    public var deviceTime: Double? { self["eb"] }

    /// The value of the variable with this code, if the package has one.
    public subscript(code: String) -> Double? { values.first { $0.code == code }?.value }
}

/// What a sink is told when a run starts.
public struct RunInfo: Sendable, Equatable {
    /// The device's name in this program, as in `PicoPackage.device`.
    public var device: String
    /// The run number on this device, from 1.
    public var run: Int
    /// The technique when known (`cv`, `eis`…), or the script's name.
    public var title: String
    /// Seconds since the Unix epoch.
    public var startTime: Double

    /// The facts of a run's start.
    public init(device: String, run: Int, title: String, startTime: Double) {
        self.device = device
        self.run = run
        self.title = title
        self.startTime = startTime
    }
}

/// How a run ended, as a sink records it.
public struct RunEnd: Sendable, Equatable {
    /// False when the run was cut short (disconnect, abort, Ctrl-C, device error).
    public var complete: Bool
    /// Why it ended early; nil for a complete run.
    public var reason: String?
    /// Packages received.
    public var packages: Int
    /// When the run ended (Unix seconds), when known: the files give it as `end_utc`.
    public var endTime: Double?
    /// What became of the cell, for a run that did not end normally (nil: nothing was done, as after a
    /// complete run, whose script switches the cell off itself).
    public var cell: CellOutcome?
    /// The run's analysis as one JSON object (PicoAnalysis' `RunAnalysis`, as an export reads it from a
    /// journal), which the JSON Lines end line carries as `analysis`; nil when there is none.
    public var analysis: String?
    /// Marks the SVG plot draws over the run's curves: peaks, baselines, a fitted circuit's curve.
    public var overlays: [Plot.Overlay] = []

    /// How a run ended; `reason` is nil for a complete run, `endTime` nil when not known.
    public init(
        complete: Bool,
        reason: String? = nil,
        packages: Int,
        endTime: Double? = nil,
        cell: CellOutcome? = nil,
        analysis: String? = nil
    ) {
        self.complete = complete
        self.reason = reason
        self.packages = packages
        self.endTime = endTime
        self.cell = cell
        self.analysis = analysis
    }

    /// The `# cell: …` line of a CSV file, when there is a cell outcome.
    var cellCommentLine: String { cell.map { "# cell: \($0)\n" } ?? "" }

    /// `2026-11-25T09:30:12.250Z`, or nil when the end time is not known.
    var endUTC: String? { endTime.flatMap { $0.isFinite ? UTCTime.iso8601($0) : nil } }
}
