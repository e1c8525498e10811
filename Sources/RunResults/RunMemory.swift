public import PicoLink

/// The last run the console recorded, kept in memory so that `:save FILE` can write it afterwards in
/// any of the file formats. Holds at most `limit` packages (the rest are counted, never kept).
public final class RunMemory: SampleSink {
    public private(set) var info: RunInfo?
    public private(set) var packages: [PicoPackage] = []
    public private(set) var end: RunEnd?
    public private(set) var provenance: RunProvenance?
    public private(set) var dropped = 0
    public let limit: Int

    public init(limit: Int = 1_000_000) { self.limit = limit }

    /// Starts keeping a new run, forgetting the last.
    public func start(provenance: RunProvenance) {
        self.provenance = provenance
        info = nil
        packages = []
        end = nil
        dropped = 0
    }

    public func begin(_ run: RunInfo) throws(SinkError) { info = run }

    public func write(_ package: PicoPackage) throws(SinkError) {
        if packages.count < limit { packages.append(package) } else { dropped += 1 }
    }

    public func finish(_ end: RunEnd) throws(SinkError) { self.end = end }

    /// Writes the kept run through `sink`, as the run itself would have.
    public func replay(into sink: any SampleSink) throws(SinkError) {
        guard let info, let end else { return }
        try sink.begin(info)
        for package in packages { try sink.write(package) }
        try sink.finish(end)
    }
}
