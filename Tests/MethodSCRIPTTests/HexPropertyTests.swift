import MethodSCRIPT
import Testing

/// SplitMix64: a small seeded generator so that the property runs are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The SWAR hex decoder equals the scalar reference on random valid and invalid fields.
@Suite struct HexPropertyTests {
    static let hexDigits = Array("0123456789ABCDEFabcdef".utf8)

    @Test func swarEqualsScalarOnMoreThanAMillionFields() {
        var random = SplitMix64(state: 0x4D53_4352_4950_5421)
        var word = [UInt8](repeating: 0, count: 8)
        var valid = 0
        let runs = 1_200_000
        for run in 0..<runs {
            switch run % 4 {
            case 0, 1:  // valid digits, random case, random 8th byte
                for index in 0..<7 { word[index] = Self.hexDigits.randomElement(using: &random)! }
            case 2:  // valid digits but one arbitrary byte at a random place
                for index in 0..<7 { word[index] = Self.hexDigits.randomElement(using: &random)! }
                word[Int.random(in: 0..<7, using: &random)] = UInt8.random(in: 0...255, using: &random)
            default:  // arbitrary bytes
                for index in 0..<7 { word[index] = UInt8.random(in: 0...255, using: &random) }
            }
            word[7] = UInt8.random(in: 0...255, using: &random)
            let (swar, scalar) = word.withUnsafeBytes {
                (HexDecoding.swar(at: $0.baseAddress!), HexDecoding.scalar(at: $0.baseAddress!))
            }
            if swar != scalar {
                Issue.record("SWAR \(swar) != scalar \(scalar) for \(word)")
                return
            }
            if scalar != HexDecoding.invalid { valid += 1 }
        }
        #expect(valid > runs / 2)
        #expect(valid < runs)
    }

    @Test func everyByteInEveryPositionIsClassifiedLikeTheScalarReference() {
        var word = Array("1A2b3C4u".utf8)
        for position in 0..<8 {
            let saved = word[position]
            for byte in 0...255 {
                word[position] = UInt8(byte)
                let (swar, scalar) = word.withUnsafeBytes {
                    (HexDecoding.swar(at: $0.baseAddress!), HexDecoding.scalar(at: $0.baseAddress!))
                }
                #expect(swar == scalar, "byte \(byte) at \(position)")
            }
            word[position] = saved
        }
    }

    @Test func everyDigitInEveryPosition() {
        for position in 0..<7 {
            for (index, digit) in Self.hexDigits.enumerated() {
                var word = Array("0000000u".utf8)
                word[position] = digit
                let expected = UInt32(index < 16 ? index : index - 6) << (4 * (6 - position))
                #expect(word.withUnsafeBytes { HexDecoding.swar(at: $0.baseAddress!) } == expected)
            }
        }
    }

    @Test func knownValues() {
        let cases: [(String, UInt32)] = [
            ("7F85F3Fu", 0x7F8_5F3F), ("0000000 ", 0), ("FFFFFFFa", 0xFFF_FFFF), ("8000000E", 0x800_0000),
        ]
        for (text, value) in cases {
            #expect(Array(text.utf8).withUnsafeBytes { HexDecoding.swar(at: $0.baseAddress!) } == value)
        }
    }
}
