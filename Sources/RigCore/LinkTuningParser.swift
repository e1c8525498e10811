import BLEHost

extension LinkTuningRequest {
    /// The accepted forms, for help texts and errors.
    public static let acceptedForms = "low-latency, balanced, power-save, or MIN-MAX[,LATENCY[,TIMEOUT]] in ms"

    /// A preset by name, or explicit values `MIN-MAX[,LATENCY[,TIMEOUT]]` (interval and timeout in ms,
    /// e.g. `7.5-15`, `30-50,0,4000`), checked against Core 5.4 Vol 4 Part E §7.8.18: interval
    /// 7.5 ms–4 s in 1.25 ms steps, min ≤ max, latency ≤ 499, timeout 100 ms–32 s in 10 ms steps and
    /// above (1 + latency) × max × 2. Without TIMEOUT the smallest of 2 s and 32 s that is valid is used.
    public init(parsing text: String) throws(LinkTuningSyntaxError) {
        if let preset = Self.presets.first(where: { $0.name == text }) {
            self = preset
            return
        }
        self = try LinkTuningParser(text: text).parse()
    }
}

/// Parses explicit `MIN-MAX[,LATENCY[,TIMEOUT]]` link parameters (milliseconds) into HCI units.
struct LinkTuningParser {
    let text: String

    /// One field of the text and where it starts.
    private struct Field {
        let value: Substring
        let offset: Int
    }

    func parse() throws(LinkTuningSyntaxError) -> LinkTuningRequest {
        let fields = split(Substring(text), separator: ",", from: 0)
        guard fields.count <= 3 else {
            throw fail(fields[3].offset, "text", "more than three comma-separated fields")
        }
        let interval = fields[0]
        let bounds = split(interval.value, separator: "-", from: interval.offset)
        guard bounds.count == 2 else {
            throw fail(interval.offset, "interval", "not a preset, and not MIN-MAX ('\(interval.value)')")
        }
        let minimum = try intervalUnits(bounds[0], name: "interval minimum")
        let maximum = try intervalUnits(bounds[1], name: "interval maximum")
        guard minimum <= maximum else {
            throw fail(
                bounds[1].offset,
                "interval maximum",
                "\(bounds[1].value) ms is below the minimum \(bounds[0].value) ms"
            )
        }
        var latency: UInt16 = 0
        if fields.count > 1 {
            let field = fields[1]
            guard let value = Int(field.value), (0...499).contains(value) else {
                throw fail(field.offset, "latency", "'\(field.value)' is not a whole number of events in 0…499")
            }
            latency = UInt16(value)
        }
        // Timeout (10 ms units) must exceed (1 + latency) × max (1.25 ms units) × 2: 10t > 2.5 m (1 + l).
        let floorHundredths = (1 + Int(latency)) * Int(maximum) * 250  // in 0.01 ms
        let timeout: UInt16
        if fields.count > 2 {
            let field = fields[2]
            let hundredths = try milliseconds(field, name: "timeout")
            guard hundredths % 1000 == 0, (10_000...3_200_000).contains(hundredths) else {
                throw fail(field.offset, "timeout", "\(field.value) ms is not 100 ms–32 s in 10 ms steps")
            }
            guard hundredths > floorHundredths else {
                throw fail(
                    field.offset,
                    "timeout",
                    "\(field.value) ms must exceed (1 + latency) × max interval × 2 = \(LinkTuningFormat.hundredths(floorHundredths)) ms"
                )
            }
            timeout = UInt16(hundredths / 1000)
        } else {
            // The smallest of 2 s or the next 10 ms step above the floor, when that fits in 32 s.
            let units = max(200, floorHundredths / 1000 + 1)
            guard units <= 3200 else {
                throw fail(
                    fields[min(1, fields.count - 1)].offset,
                    "latency",
                    "(1 + latency) × max interval × 2 = \(LinkTuningFormat.hundredths(floorHundredths)) ms leaves no supervision timeout ≤ 32 s"
                )
            }
            timeout = UInt16(units)
        }
        return LinkTuningRequest(
            name: text,
            connection: HCIConnectionParameters(
                intervalMin: minimum,
                intervalMax: maximum,
                latency: latency,
                supervisionTimeout: timeout
            )
        )
    }

    private func split(_ value: Substring, separator: Character, from offset: Int) -> [Field] {
        var fields: [Field] = []
        var start = offset
        for part in value.split(separator: separator, omittingEmptySubsequences: false) {
            fields.append(Field(value: part, offset: start))
            start += part.count + 1
        }
        return fields
    }

    /// An interval bound in 1.25 ms units: 7.5 ms (6) … 4000 ms (3200).
    private func intervalUnits(_ field: Field, name: String) throws(LinkTuningSyntaxError) -> UInt16 {
        let hundredths = try milliseconds(field, name: name)
        guard hundredths % 125 == 0 else {
            throw fail(field.offset, name, "\(field.value) ms is not a multiple of 1.25 ms")
        }
        guard (750...400_000).contains(hundredths) else {
            throw fail(field.offset, name, "\(field.value) ms is outside 7.5 ms–4 s")
        }
        return UInt16(hundredths / 125)
    }

    /// A decimal number of milliseconds with at most two decimals, in hundredths of a millisecond.
    private func milliseconds(_ field: Field, name: String) throws(LinkTuningSyntaxError) -> Int {
        let parts = field.value.split(separator: ".", omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        guard parts.count <= 2, !whole.isEmpty, whole.count <= 7, fraction.count <= 2,
            whole.allSatisfy(\.isASCIIDigit), fraction.allSatisfy(\.isASCIIDigit),
            parts.count == 1 || !fraction.isEmpty,
            let units = Int(whole)
        else {
            throw fail(field.offset, name, "'\(field.value)' is not a number of milliseconds (e.g. 7.5)")
        }
        let decimals = Int(fraction.padding(toLength: 2)) ?? 0
        return units * 100 + decimals
    }

    private func fail(_ offset: Int, _ field: String, _ reason: String) -> LinkTuningSyntaxError {
        LinkTuningSyntaxError(text: text, offset: offset, field: field, reason: reason)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    fileprivate func padding(toLength length: Int) -> String {
        String(self) + String(repeating: "0", count: Swift.max(0, length - count))
    }
}
