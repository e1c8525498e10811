/// How the seven digits are decoded: SWAR (the fast path) or the scalar reference.
@usableFromInline package protocol HexStrategy {
    static func decode(_ word: UInt64, at pointer: UnsafeRawPointer, tables: DecodeTables) -> UInt32
}

@usableFromInline package enum SWARHex: HexStrategy {
    @inlinable @inline(__always)
    package static func decode(_ word: UInt64, at pointer: UnsafeRawPointer, tables: DecodeTables) -> UInt32 {
        HexDecoding.swar(word)
    }
}

@usableFromInline package enum ScalarHex: HexStrategy {
    @inlinable @inline(__always)
    package static func decode(_ word: UInt64, at pointer: UnsafeRawPointer, tables: DecodeTables) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<7 {
            let digit = tables.hex[Int(pointer.load(fromByteOffset: index, as: UInt8.self))]
            if digit == 0xFF { return HexDecoding.invalid }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
