import PicoLink

/// The last run the console recorded, kept in memory so that `:save FILE` can write it afterwards in
/// any of the file formats. Holds at most `limit` packages (the rest are counted, never kept).
final class RunMemory: SampleSink {
    private(set) var info: RunInfo?
    private(set) var packages: [PicoPackage] = []
    private(set) var end: RunEnd?
    private(set) var provenance: RunProvenance?
    private(set) var dropped = 0
    let limit: Int

    init(limit: Int = 1_000_000) { self.limit = limit }

    /// Starts keeping a new run, forgetting the last.
    func start(provenance: RunProvenance) {
        self.provenance = provenance
        info = nil
        packages = []
        end = nil
        dropped = 0
    }

    func begin(_ run: RunInfo) throws(SinkError) { info = run }

    func write(_ package: PicoPackage) throws(SinkError) {
        if packages.count < limit { packages.append(package) } else { dropped += 1 }
    }

    func finish(_ end: RunEnd) throws(SinkError) { self.end = end }

    /// Writes the kept run through `sink`, as the run itself would have.
    func replay(into sink: any SampleSink) throws(SinkError) {
        guard let info, let end else { return }
        try sink.begin(info)
        for package in packages { try sink.write(package) }
        try sink.finish(end)
    }
}
