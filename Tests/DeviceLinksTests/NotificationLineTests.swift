import DeviceLinks
import Foundation
import Testing

/// A notified value as `gatt subscribe` prints it, in each of its formats.
@Suite struct NotificationLineTests {
    /// 2026-11-22T07:30:00.123456Z.
    static let time = 1_795_332_600.123456

    @Test func hexAndTextCarryTheUTCTimeToTheMicrosecondAndTheHandle() {
        let hex = NotificationLine.line([0x01, 0x02, 0xFF], handle: 3, at: Self.time, format: .hex)
        #expect(
            hex == "2026-11-22T07:30:00.123456Z 0x0003 0102ff\n" || hex == "2026-11-22T07:30:00.123455Z 0x0003 0102ff\n"
        )
        let text = NotificationLine.line(Array("ok\n".utf8), handle: 0x2A, at: Self.time, format: .text)
        #expect(text.hasPrefix("2026-11-22T07:30:00.12345") && text.contains(" 0x002A ok"))
        #expect(text.hasSuffix("\n") && text.dropLast().contains("\n") == false, "one line: \(text)")
    }

    @Test func jsonlIsOneObjectWithTextNullWhenTheValueIsNotUTF8() throws {
        let line = NotificationLine.line([0xFF, 0xFE], handle: 16, at: Self.time, format: .jsonl)
        #expect(line.hasSuffix("}\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["handle"] as? Int == 16)
        #expect(object["value_hex"] as? String == "fffe")
        #expect(object["text"] is NSNull)
        #expect(abs((object["t"] as? Double ?? 0) - Self.time) < 2e-6)
        #expect(line.contains("\"t\":1795332600.12345"), "seconds with six decimals: \(line)")
    }
}
