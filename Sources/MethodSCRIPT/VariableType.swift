/// A MethodSCRIPT variable type: the two lowercase ASCII letters before a value (`da`, `ba`, …).
/// Any two-letter code is accepted; `info` tells what the spec table knows about it.
public struct VariableType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The two ASCII bytes, first in the high byte (`"ba"` = `0x6261`).
    public var rawValue: UInt16

    @inline(__always)
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The type for a two-letter code such as `"ba"`; `nil` unless it is two lowercase ASCII letters.
    public init?(code: String) {
        let bytes = Array(code.utf8)
        guard bytes.count == 2, bytes.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else { return nil }
        rawValue = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }

    /// The two-letter code.
    public var code: String {
        String(
            decoding: [UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)],
            as: UTF8.self
        )
    }

    /// The SI base unit of decoded values (`""` for unitless or unknown types).
    public var unit: String { info?.unit ?? "" }

    /// Which range table a range metadata value indexes for this type.
    public var rangeKind: RangeKind { info?.rangeKind ?? .none }

    public var description: String { code }
}

/// What the spec table says about one variable type.
public struct VariableTypeInfo: Sendable, Equatable {
    public let code: String
    public let name: String
    public let quantity: Quantity
    /// The SI base unit the decoded value is in (`V`, `A`, `Ω`, `Hz`, `Vrms`, …), `""` when unitless.
    public let unit: String
    public let rangeKind: RangeKind
}

/// Whether a range metadata value of a variable indexes a current or a potential range table.
public enum RangeKind: UInt8, Sendable, CaseIterable {
    case none
    case current
    case potential
}
