import BLEHost
import Testing

/// Attribute values as text and text as values.
@Suite struct AttributeValueTextTests {
    @Test func hexValuesAreParsedWithLocatedErrors() throws {
        #expect(try AttributeValueText.parseHex("0102ff") == [1, 2, 0xFF])
        #expect(try AttributeValueText.parseHex("0x01 02:FF") == [1, 2, 0xFF])
        #expect(try AttributeValueText.parseHex("") == [])
        for (text, message) in [
            ("0g", "column 2 is not a hex digit"), ("0x0102z", "column 7 is not a hex digit"),
            ("012", "odd number of hex digits"), ("0 12", "odd hex digit before column 2"),
        ] {
            do {
                _ = try AttributeValueText.parseHex(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.contains(message), "\(text): \(error.description)")
            }
        }
    }

    @Test func valuesAreWrittenAsHexOrOneLineOfText() {
        #expect(AttributeValueText.hex([0, 0xAB, 0x7F]) == "00ab7f")
        #expect(AttributeValueText.line(Array("a\nb\\\u{1}".utf8)) == "a\\nb\\\\\\x01")
        #expect(AttributeValueText.line([0x41, 0xC3, 0xA9, 0xFF, 0xE2, 0x82]) == "A\u{E9}\\xff\\xe2\\x82")
        #expect(AttributeValueText.utf8([0xFF]) == nil && AttributeValueText.utf8([0x41]) == "A")
    }
}
