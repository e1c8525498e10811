/// A small independent check of the device's reply grammar and a decoder for its value fields, written for
/// these tests only.
struct ReplyCheck {
    struct Variable {
        var type: String
        var value: Double
        var status: Int?
        var range: Int?
    }

    var packages: [[Variable]] = []
    var scans = 0
    var measurementLoops = 0
    var texts: [String] = []
    var problems: [String] = []

    static let factors: [Character: Double] = [
        "a": 1e-18, "f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, " ": 1, "k": 1e3, "M": 1e6,
        "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18, "i": 1,
    ]

    /// Decodes an 8-character value field (`7F85F3Fu`), or nil when malformed.
    static func decode(_ field: Substring) -> Double? {
        guard field.count == 8 else { return nil }
        if field == "     nan" { return .nan }
        let hex = field.prefix(7)
        guard hex.allSatisfy({ "0123456789ABCDEF".contains($0) }), let raw = Int(hex, radix: 16),
            let factor = factors[field.last!]
        else { return nil }
        return Double(raw - 0x800_0000) * factor
    }

    static func variable(_ text: Substring) -> Variable? {
        guard text.count >= 10 else { return nil }
        let type = text.prefix(2)
        guard type.allSatisfy({ $0.isLowercase && $0.isASCII }),
            let value = decode(text.dropFirst(2).prefix(8))
        else { return nil }
        var result = Variable(type: String(type), value: value)
        for meta in text.dropFirst(10).split(separator: ",", omittingEmptySubsequences: false).dropFirst() {
            guard let kind = meta.first, let payload = Int(meta.dropFirst(), radix: 16) else { return nil }
            switch kind {
            case "1" where meta.count == 2: result.status = payload
            case "2" where meta.count == 3: result.range = payload
            default: return nil
            }
        }
        if text.count > 10, text.dropFirst(10).first != "," { return nil }
        return result
    }

    /// Checks a whole script reply: `e`, then properly nested scopes, and the final empty line.
    init(reply: String) {
        var lines = reply.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == "e" else {
            problems.append("reply does not start with e: \(lines.first ?? "")")
            return
        }
        guard lines.count >= 3, lines.last == "", lines[lines.count - 2] == "" else {
            problems.append("reply does not end with an empty line")
            return
        }
        lines = Array(lines.dropFirst().dropLast(2))
        var scopes: [Character] = []
        for line in lines {
            guard let first = line.first else {
                problems.append("empty line inside the output")
                continue
            }
            let isCounter = line.count == 5 && line.dropFirst().allSatisfy { "0123456789ABCDEF".contains($0) }
            switch first {
            case "M" where isCounter:
                scopes.append("M")
                measurementLoops += 1
            case "C" where isCounter:
                scopes.append("C")
                scans += 1
            case "L" where line.count == 1: scopes.append("L")
            case "*" where line.count == 1: if scopes.popLast() != "M" { problems.append("* closes nothing") }
            case "-" where line.count == 1: if scopes.popLast() != "C" { problems.append("- closes nothing") }
            case "+" where line.count == 1: if scopes.popLast() != "L" { problems.append("+ closes nothing") }
            case "T": texts.append(String(line.dropFirst()))
            case "P":
                let variables = line.dropFirst().split(separator: ";", omittingEmptySubsequences: false)
                    .map { Self.variable($0) }
                if variables.contains(where: { $0 == nil }) { problems.append("bad package: \(line)") }
                packages.append(variables.compactMap { $0 })
            default: problems.append("unexpected line: \(line)")
            }
        }
        if !scopes.isEmpty { problems.append("scopes left open: \(scopes)") }
    }
}
