import PicoLink

/// A sink that keeps what it is given; read by a test once the recording has returned.
final class KeepingSink: SampleSink {
    private(set) var packages: [PicoPackage] = []
    private(set) var ends: [RunEnd] = []
    func begin(_ run: RunInfo) throws(SinkError) {}
    func write(_ package: PicoPackage) throws(SinkError) { packages.append(package) }
    func finish(_ end: RunEnd) throws(SinkError) { ends.append(end) }
    func sync() throws(SinkError) {}
}
