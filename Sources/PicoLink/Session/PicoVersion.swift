/// The reply to `t`.
public struct PicoVersion: Sendable, Equatable {
    /// The reply's lines as sent (the first starts with `t`, the last ends with `*`).
    public let lines: [String]

    /// A reply from its lines as received.
    public init(lines: [String]) { self.lines = lines }

    /// The first line without its `t`, e.g. `espico1209#Nov 22 2026 00:00:00`.
    public var firmware: String { lines.first.map { String($0.dropFirst()) } ?? "" }

    /// The device the firmware prefix names (`EmStat Pico` for `espico`).
    public var device: String {
        let prefixes = [
            ("espbl", "EmStat Pico bootloader"), ("espico", "EmStat Pico"), ("senswb", "Sensit Wearable"),
            ("es4_hr", "EmStat4 HR"), ("es4_lr", "EmStat4 LR"), ("mes4hr", "MultiEmStat4 HR"),
            ("mes4lr", "MultiEmStat4 LR"), ("nexus1", "Nexus"),
        ]
        return prefixes.first { firmware.hasPrefix($0.0) }?.1 ?? "unknown"
    }
}
