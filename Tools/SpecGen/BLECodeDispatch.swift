/// The dispatch enum of a family of commands that start with a one-octet code (L2CAP signaling, SMP):
/// a case per command, the table of codes and names, decoding by the code, encoding.
struct BLECodeDispatch {
    let enumName: String
    /// What `unknownCode` calls the code, e.g. `L2CAP signaling code`.
    let codeKind: String
    /// The enum's doc comment lines, without `///`.
    let doc: [String]
    /// Each command also carries an identifier (signaling).
    let identifier: Bool

    func emit(_ cases: [(String, BLEShape)]) -> String {
        var out = doc.map { "/// \($0)\n" }.joined()
        out += "public enum \(enumName): WireCodable {\n"
        for (caseName, shape) in cases { out += "    case \(caseName)(\(shape.type))\n" }
        out += "\n    public static var minimumLength: Int { \(identifier ? 4 : 1) }\n\n"
        out += "    /// Every command of the table: code and spec name.\n"
        out += "    public static let table: [(code: UInt8, name: String)] = [\n"
        for (_, shape) in cases { out += "        (\(shape.type).code, \"\(shape.specName)\"),\n" }
        out += "    ]\n\n"
        out += "    public init(parsing reader: inout ByteReader) throws(DecodeError) {\n"
        out += "        try reader.require(Self.minimumLength)\n"
        out += "        let code = try reader.peekUInt8()\n        switch code {\n"
        for (caseName, shape) in cases {
            out += "        case \(shape.type).code: self = .\(caseName)(try \(shape.type)(parsing: &reader))\n"
        }
        out += "        default:\n"
        out +=
            "            throw DecodeError(offset: reader.offset, reason: .unknownCode(kind: \"\(codeKind)\", code: UInt16(code)))\n"
        out += "        }\n    }\n\n"
        if identifier {
            out += "    /// The identifier that pairs a request with its response.\n"
            out += "    public var identifier: UInt8 {\n        switch self {\n"
            for (caseName, _) in cases { out += "        case .\(caseName)(let command): command.identifier\n" }
            out += "        }\n    }\n\n"
        }
        out += "    public func encode(into writer: inout ByteWriter) {\n        switch self {\n"
        for (caseName, _) in cases { out += "        case .\(caseName)(let command): command.encode(into: &writer)\n" }
        out += "        }\n    }\n}\n"
        return out
    }
}
