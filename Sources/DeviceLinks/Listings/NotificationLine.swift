import BLEHost
import PicoLink

/// A notified or indicated value as `hcipico gatt subscribe` prints it: one line, with the time it
/// arrived (UTC, to the microsecond) and the handle it came from.
public enum NotificationLine {
    /// How the value is written.
    public enum Format: String, Sendable, CaseIterable {
        /// `2026-11-22T07:30:00.123456Z 0x0003 01 02 ff`.
        case hex
        /// `2026-11-22T07:30:00.123456Z 0x0003 text`, control bytes escaped (`AttributeValueText.line`).
        case text
        /// `{"t":1795419000.123456,"handle":3,"value_hex":"0102ff","text":null}` (text null when not UTF-8).
        case jsonl
    }

    /// The line for `value` from `handle`, received at `wallTime` (seconds since 1970, UTC), with its
    /// newline.
    public static func line(_ value: [UInt8], handle: UInt16, at wallTime: Double, format: Format) -> String {
        switch format {
        case .hex:
            return "\(UTCTime.iso8601(wallTime, fractionDigits: 6)) \(AttributeValueText.handle(handle)) "
                + "\(AttributeValueText.hex(value))\n"
        case .text:
            return "\(UTCTime.iso8601(wallTime, fractionDigits: 6)) \(AttributeValueText.handle(handle)) "
                + "\(AttributeValueText.line(value))\n"
        case .jsonl:
            let text = AttributeValueText.utf8(value).map { JSONText.quoted($0) } ?? "null"
            let microseconds = Int64((wallTime * 1_000_000).rounded(.down))
            let (seconds, fraction) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
            let digits = String(fraction)
            let stamp = "\(seconds)." + String(repeating: "0", count: 6 - digits.count) + digits
            return "{\"t\":\(stamp),\"handle\":\(handle),\"value_hex\":\"\(AttributeValueText.hex(value))\","
                + "\"text\":\(text)}\n"
        }
    }
}
