/// Writes one JSON object per value, one per line:
/// `{"device":"sim","run":1,"package":0,"loop":0,"scan":null,"time":1763787000.123456,
/// "device_time":null,"variable":"ba","quantity":"WE current","value":-5.78e-05,"unit":"A",
/// "status":"OK","range":"1 mA (high speed)"}` (NaN as `null`).
///
/// The last line is `{"event":"end","complete":…,"reason":…,"packages":…}`; a file without it was cut
/// off by a crash. Each package's lines go to the file in one write.
public final class JSONLinesSink: SampleSink {
    private let file: SinkFile

    public init(file: SinkFile) { self.file = file }

    /// Opens `path` (see `SinkFile`: a new file unless `overwrite`).
    public convenience init(path: String, overwrite: Bool = false) throws(SinkError) {
        self.init(file: try SinkFile(path: path, overwrite: overwrite))
    }

    public func sync() throws(SinkError) { try file.sync() }

    public func begin(_ run: RunInfo) throws(SinkError) {}

    public func write(_ package: PicoPackage) throws(SinkError) {
        var lines = ""
        let scan = package.scan.map(String.init) ?? "null"
        let deviceTime = package.deviceTime.map(SinkText.jsonNumber) ?? "null"
        let common =
            "{\"device\":\(JSONText.quoted(package.device)),\"run\":\(package.run),\"package\":\(package.index),"
            + "\"loop\":\(package.loop),\"scan\":\(scan),\"time\":\(SinkText.seconds(package.hostTime)),"
            + "\"device_time\":\(deviceTime),"
        for value in package.values {
            lines += common
            lines += "\"variable\":\(JSONText.quoted(value.code)),\"quantity\":\(JSONText.quoted(value.quantity)),"
            lines += "\"value\":\(SinkText.jsonNumber(value.value)),\"unit\":\(JSONText.quoted(value.unit))"
            lines += ",\"status\":\(value.statusText.map(JSONText.quoted) ?? "null")"
            lines += ",\"range\":\(value.rangeLabel.map(JSONText.quoted) ?? "null")}\n"
        }
        try file.write(lines)
    }

    public func finish(_ end: RunEnd) throws(SinkError) {
        let reason = end.reason.map(JSONText.quoted) ?? "null"
        try file.write(
            "{\"event\":\"end\",\"complete\":\(end.complete),\"reason\":\(reason),\"packages\":\(end.packages)}\n"
        )
    }
}
