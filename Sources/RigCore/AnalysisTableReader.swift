import PicoAnalysis
import TOMLKit

/// Reads an `[analysis]` table: the rig's (the defaults for every device) or a device's
/// (`[device.analysis]`, over the rig's). Each key is a setting of `AnalysisSettings` in its words
/// (`smooth = "auto"`, `min_height = 1e-7`, `circuit = "R(Q(RW))"`…), and `enabled = false` turns the
/// analysis off.
enum AnalysisTableReader {
    /// The keys a table may hold.
    static let keys = Set(AnalysisSettings.names + ["enabled"])

    /// `base` with `table`'s settings; nil when the analysis is off. Problems are recorded in `reader`,
    /// located at their key.
    static func read(
        _ table: TOMLTable,
        table name: String,
        index: Int? = nil,
        base: AnalysisSettings?,
        reader: inout ConfigReader
    ) -> AnalysisSettings? {
        reader.unknownKeys(in: table, table: name, index: index, allowed: keys)
        let enabled = reader.bool(table, table: name, index: index, key: "enabled")
        if enabled == false { return nil }
        var settings = base ?? AnalysisSettings()
        for key in AnalysisSettings.names {
            guard let value = table[key] else { continue }
            let text: String
            if let string = value.string {
                text = string
            } else if let integer = value.int {
                text = "\(integer)"
            } else if let number = value.double {
                text = "\(number)"
            } else if let flag = value.bool {
                text = "\(flag)"
            } else {
                reader.problem(table: name, index: index, key: key, "must be a string, a number or true/false")
                continue
            }
            do throws(AnalysisSettings.SettingError) {
                settings = try settings.with(key, text)
            } catch {
                reader.problem(table: name, index: index, key: error.setting, error.message)
            }
        }
        return settings
    }
}
