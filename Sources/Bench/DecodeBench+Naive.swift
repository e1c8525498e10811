/// A deliberately plain parser in the style of PalmSens' iOS example: the received text is kept in a
/// `String`, split on newlines, each `P` line split on `;` and `,`, each value parsed with
/// `Int(_:radix:)` and its prefix looked up in a dictionary. It is the baseline, not our code path.
enum NaiveStringParser {
    static let factors: [Character: Double] = [
        "a": 1e-18, "f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, " ": 1,
        "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18, "i": 1,
    ]

    struct Value {
        let type: String
        let value: Double
        let status: Int
        let range: Int
    }

    /// Parses all lines of `text`; returns the number of values and the sum of their values.
    static func parse(_ text: String) -> (count: Int, sum: Double) {
        var count = 0
        var sum = 0.0
        for line in text.split(separator: "\n") where line.first == "P" {
            var values: [Value] = []
            for variable in line.dropFirst().split(separator: ";") {
                let fields = variable.split(separator: ",")
                guard let head = fields.first, head.count == 10 else { continue }
                let type = String(head.prefix(2))
                let digits = String(head.dropFirst(2).prefix(7))
                guard let raw = Int(digits, radix: 16), let factor = factors[head.last!] else { continue }
                var status = 0
                var range = 0
                for meta in fields.dropFirst() {
                    if meta.first == "1" { status = Int(meta.dropFirst(), radix: 16) ?? 0 }
                    if meta.first == "2" { range = Int(meta.dropFirst(), radix: 16) ?? 0 }
                }
                values.append(Value(type: type, value: Double(raw - 0x800_0000) * factor, status: status, range: range))
            }
            count += values.count
            for value in values { sum += value.value }
        }
        return (count, sum)
    }
}
