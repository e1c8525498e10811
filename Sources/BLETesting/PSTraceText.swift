/// A PSTrace CSV file's lines as tests read them back: UTF-16 little-endian after a byte order mark,
/// every line ended by CRLF and no other line break.
public enum PSTraceText {
    /// The lines without their CRLF; nil when the bytes do not start with the byte order mark, do not
    /// end with CRLF, or hold a line break that is not one.
    public static func lines(_ bytes: [UInt8]) -> [String]? {
        guard bytes.count % 2 == 0, Array(bytes.prefix(2)) == [0xFF, 0xFE] else { return nil }
        let units = stride(from: 2, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
        let text = String(decoding: units, as: UTF16.self)
        guard text.hasSuffix("\r\n") else { return nil }
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        guard !lines.contains(where: { $0.contains("\n") || $0.contains("\r") }) else { return nil }
        return lines
    }
}
