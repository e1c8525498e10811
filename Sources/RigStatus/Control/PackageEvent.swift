import PicoLink

/// A package as its `package` server-sent event, written as UTF-8 straight into the bytes a feed keeps:
/// `id: INDEX`, `event: package` and `data:` the package's JSON, `{"index", "loop", "scan", "host_time",
/// "values": [{"name", "type", "value"}]}`. A stream sends a thousand a second, so it is written out
/// directly: no encoder's reflection, no intermediate strings.
enum PackageEvent {
    /// Appends `package`'s whole event to `bytes`.
    static func append(_ package: PicoPackage, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "id: ".utf8)
        appendInteger(package.index, to: &bytes)
        bytes.append(contentsOf: "\nevent: package\ndata: ".utf8)
        appendJSON(package, to: &bytes)
        bytes.append(contentsOf: "\n\n".utf8)
    }

    /// The whole event as text.
    static func text(_ package: PicoPackage) -> String { written { append(package, to: &$0) } }

    /// The package's JSON as text.
    static func json(_ package: PicoPackage) -> String { written { appendJSON(package, to: &$0) } }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String { written { appendQuoted(text, to: &$0) } }

    /// `value` as a JSON number.
    static func number(_ value: Double) -> String { written { appendNumber(value, to: &$0) } }

    /// What `write` appends, as text.
    private static func written(_ write: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        write(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendJSON(_ package: PicoPackage, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "{\"index\":".utf8)
        appendInteger(package.index, to: &bytes)
        bytes.append(contentsOf: ",\"loop\":".utf8)
        appendInteger(package.loop, to: &bytes)
        bytes.append(contentsOf: ",\"scan\":".utf8)
        if let scan = package.scan { appendInteger(scan, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        bytes.append(contentsOf: ",\"host_time\":".utf8)
        appendNumber(package.hostTime, to: &bytes)
        bytes.append(contentsOf: ",\"values\":[".utf8)
        for (position, value) in package.values.enumerated() {
            bytes.append(contentsOf: (position > 0 ? ",{\"name\":" : "{\"name\":").utf8)
            if let name = value.name { appendQuoted(name, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
            bytes.append(contentsOf: ",\"type\":".utf8)
            appendQuoted(value.variable.code, to: &bytes)
            bytes.append(contentsOf: ",\"value\":".utf8)
            appendNumber(value.value, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(contentsOf: "]}".utf8)
    }

    /// A decimal integer.
    static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// A JSON number: `null` for a value that is not finite (the device's `nan`).
    static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: (value.isFinite ? value.description : "null").utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string: escaped where it must be (quotes, backslashes, control characters).
    static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
            case ..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
