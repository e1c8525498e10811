/// How the seven digits are decoded: SWAR (the fast path) or the scalar reference.
protocol HexStrategy {
    static func decode(_ word: UInt64, at pointer: UnsafeRawPointer, tables: DecodeTables) -> UInt32
}

enum SWARHex: HexStrategy {
    @inline(__always)
    static func decode(_ word: UInt64, at pointer: UnsafeRawPointer, tables: DecodeTables) -> UInt32 {
        HexDecoding.swar(word)
    }
}

enum ScalarHex: HexStrategy {
    @inline(__always)
    static func decode(_ word: UInt64, at pointer: UnsafeRawPointer, tables: DecodeTables) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<7 {
            let digit = tables.hex[Int(pointer.load(fromByteOffset: index, as: UInt8.self))]
            if digit == 0xFF { return HexDecoding.invalid }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
