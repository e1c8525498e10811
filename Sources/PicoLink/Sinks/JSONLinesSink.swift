/// Writes one JSON object per value, one per line, with the per-point table's names and numbering
/// (`PointCSVSink`: scan and loop from 1, `host_time`, the script's `pck_add` name):
/// `{"device":"sim","run":1,"scan":1,"loop":1,"package":0,"host_time":1763787000.123456,
/// "device_time":null,"name":"c","variable":"ba","quantity":"WE current","value":-5.78e-05,"unit":"A",
/// "status":"OK","range":"1 mA (high speed)"}` (NaN as `null`).
///
/// The first line is `{"event":"start",…}` with the run's provenance (tool, device, address,
/// transport, firmware, serial, script and its SHA-256, start time, link parameters). The last line is `{"event":"end","complete":…,"reason":…,"packages":…}` (with `analysis`, the
/// run's peaks or circuit fit, when an export from a journal has one); a file without it was cut off by a
/// crash. Each package's lines go to the file in one write.
public final class JSONLinesSink: SampleSink {
    private let file: SinkFile

    private let provenance: RunProvenance?
    private var wroteStart = false

    /// A sink that appends to `file`; the start line holds `provenance` when given, else what `RunInfo` tells.
    public init(file: SinkFile, provenance: RunProvenance? = nil) {
        self.file = file
        self.provenance = provenance
    }

    /// Opens `path` (see `SinkFile`: a new file unless `overwrite`).
    public convenience init(path: String, overwrite: Bool = false, provenance: RunProvenance? = nil) throws(SinkError) {
        self.init(file: try SinkFile(path: path, overwrite: overwrite), provenance: provenance)
    }

    /// Flushes the file to the device (`SinkFile.sync`).
    public func sync() throws(SinkError) { try file.sync() }

    /// Writes the `{"event":"start",…}` line, unknown facts as `null` and the run number as a number
    /// (as in every package line); only for the first run.
    public func begin(_ run: RunInfo) throws(SinkError) {
        guard !wroteStart else { return }
        wroteStart = true
        let fields = ProvenanceFields.fields(provenance, run: run).map { field in
            let value =
                field.value == "n/a" ? "null" : field.key == "run" ? field.value : JSONText.quoted(field.value)
            return "\(JSONText.quoted(field.key)):\(value)"
        }
        try file.write("{\"event\":\"start\"," + fields.joined(separator: ",") + "}\n")
    }

    /// Writes one line per value of the package, in one write.
    public func write(_ package: PicoPackage) throws(SinkError) {
        var lines = ""
        let deviceTime = package.deviceTime.map(SinkText.jsonNumber) ?? "null"
        let common =
            "{\"device\":\(JSONText.quoted(package.device)),\"run\":\(package.run),"
            + "\"scan\":\(package.scanNumber),\"loop\":\(package.loop),\"package\":\(package.index),"
            + "\"host_time\":\(package.hostTime.isFinite ? SinkText.seconds(package.hostTime) : "null"),"
            + "\"device_time\":\(deviceTime),"
        for value in package.values {
            lines += common
            lines += "\"name\":\(JSONText.quoted(value.name ?? value.code)),"
            lines += "\"variable\":\(JSONText.quoted(value.code)),\"quantity\":\(JSONText.quoted(value.quantity)),"
            lines += "\"value\":\(SinkText.jsonNumber(value.value)),\"unit\":\(JSONText.quoted(value.unit))"
            lines += ",\"status\":\(value.statusText.map(JSONText.quoted) ?? "null")"
            lines += ",\"range\":\(value.rangeLabel.map(JSONText.quoted) ?? "null")}\n"
        }
        try file.write(lines)
    }

    /// Writes the `{"event":"end",…}` line.
    public func finish(_ end: RunEnd) throws(SinkError) {
        let reason = end.reason.map(JSONText.quoted) ?? "null"
        try file.write(
            "{\"event\":\"end\",\"complete\":\(end.complete),\"reason\":\(reason),\"packages\":\(end.packages),"
                + "\"end_utc\":\(end.endUTC.map(JSONText.quoted) ?? "null"),"
                + "\"cell\":\(end.cell.map { JSONText.quoted($0.description) } ?? "null")"
                + (end.analysis.map { ",\"analysis\":\($0)" } ?? "") + "}\n"
        )
    }
}
