extension Method {
    /// The values `KEY=VALUE` settings give (`scan_rate=0.05`, in SI units), the later of two for the
    /// same key winning; a setting that is not a key, `=` and a finite number is refused, named.
    public static func values(settings: [String]) throws(MethodError) -> [String: Double] {
        var values: [String: Double] = [:]
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let value = Double(parts[1]), value.isFinite else {
                throw .malformedSetting(setting)
            }
            values[parts[0]] = value
        }
        return values
    }
}
