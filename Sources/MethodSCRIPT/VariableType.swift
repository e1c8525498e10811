/// A MethodSCRIPT variable type: the two lowercase ASCII letters before a value (`da`, `ba`, …).
/// Any two-letter code is accepted; `info` tells what the spec table knows about it.
public struct VariableType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The two ASCII bytes, first in the high byte (`"ba"` = `0x6261`).
    public var rawValue: UInt16

    /// The type whose two ASCII bytes `rawValue` packs (first letter in the high byte), unchecked.
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

    /// The two-letter code, e.g. `ba`.
    public var description: String { code }
}

/// What the spec table says about one variable type.
public struct VariableTypeInfo: Sendable, Equatable {
    /// The two-letter code, e.g. `ba`.
    public let code: String
    /// What the spec table calls it, e.g. `WE current`.
    public let name: String
    /// The physical quantity the value measures.
    public let quantity: Quantity
    /// The SI base unit the decoded value is in (`V`, `A`, `Ω`, `Hz`, `Vrms`, …), `""` when unitless.
    public let unit: String
    /// Which range table its range metadata indexes.
    public let rangeKind: RangeKind
}

/// Whether a range metadata value of a variable indexes a current or a potential range table.
public enum RangeKind: UInt8, Sendable, CaseIterable {
    /// No range table: range metadata of such a variable cannot be looked up (also for unknown types).
    case none
    /// The device family's current range table (full scale in A).
    case current
    /// The device family's potential range table (full scale in V).
    case potential
}
