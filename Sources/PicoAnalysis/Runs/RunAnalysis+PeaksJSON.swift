extension RunAnalysis {
    /// The JSON of results that are peaks alone (a voltammetry's, what the rig stores for most runs),
    /// written directly: the same bytes as `encoder` writes (keys in snake case, sorted; numbers as Swift
    /// prints them, a whole one without `.0`; a number that is not finite as a string), in a fraction of
    /// its time. Nil for anything else, or a current whose name would need escaping.
    var peaksJSON: String? {
        var byCurrent: [String: [VoltammetricPeak]] = [:]
        for result in results {
            guard case .peaks(let current, let found) = result,
                current.utf8.allSatisfy({
                    $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
                })
            else { return nil }
            byCurrent[current] = found
        }
        var json = "{"
        json.reserveCapacity(64 + 420 * byCurrent.values.reduce(0) { $0 + $1.count })
        if !byCurrent.isEmpty {
            json += "\"peaks\":{"
            for (number, current) in byCurrent.keys.sorted().enumerated() {
                if number > 0 { json += "," }
                json += "\""
                json += current
                json += "\":["
                for (index, peak) in (byCurrent[current] ?? []).enumerated() {
                    if index > 0 { json += "," }
                    Self.write(peak, into: &json)
                }
                json += "]"
            }
            json += "},"
        }
        json += "\"run\":" + String(run) + "}"
        return json
    }

    private static func write(_ peak: VoltammetricPeak, into json: inout String) {
        json += "{\"area\":"
        write(peak.area, into: &json)
        json += ",\"baseline_current\":"
        write(peak.baselineCurrent, into: &json)
        if let charge = peak.charge {
            json += ",\"charge\":"
            write(charge, into: &json)
        }
        json += ",\"current\":"
        write(peak.current, into: &json)
        json += ",\"direction\":\"" + peak.direction.rawValue + "\",\"height\":"
        write(peak.height, into: &json)
        json += ",\"index\":" + String(peak.index) + ",\"left_foot\":"
        write(peak.leftFoot, into: &json)
        json += ",\"left_foot_baseline\":"
        write(peak.leftFootBaseline, into: &json)
        json += ",\"potential\":"
        write(peak.potential, into: &json)
        json += ",\"prominence\":"
        write(peak.prominence, into: &json)
        json += ",\"right_foot\":"
        write(peak.rightFoot, into: &json)
        json += ",\"right_foot_baseline\":"
        write(peak.rightFootBaseline, into: &json)
        json += ",\"scan\":" + String(peak.scan) + ",\"sweep\":" + String(peak.sweep) + ",\"width\":"
        write(peak.width, into: &json)
        json += "}"
    }

    private static func write(_ value: Double, into json: inout String) {
        guard value.isFinite else {
            json += value.isNaN ? "\"nan\"" : (value > 0 ? "\"inf\"" : "\"-inf\"")
            return
        }
        // Written in place (a description of more than 15 bytes would be a string of its own); only a
        // whole number's ends in `.0`.
        value.write(to: &json)
        if json.utf8.last == UInt8(ascii: "0"), json.utf8.dropLast().last == UInt8(ascii: ".") { json.removeLast(2) }
    }
}
