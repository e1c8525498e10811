import Testing

@testable import MethodSCRIPT

/// The one-test checks of the fast path, over every input they can see.
@Suite struct FastPathCheckTests {
    @Test func areLettersOnEveryPairOfBytes() {
        var letters = 0
        for types in 0...UInt16.max {
            let expected = (0x61...0x7A).contains(types & 0xFF) && (0x61...0x7A).contains(types >> 8)
            #expect(PackageDecoder.areLetters(types) == expected, "types 0x\(String(types, radix: 16))")
            if expected { letters += 1 }
        }
        #expect(letters == 26 * 26)
    }

    @Test func everyTypePairDecodesAsTheReferenceDoes() {
        // One line a pair of type bytes; a newline among them only makes other lines.
        var bytes: [UInt8] = []
        for types in 0...UInt16.max {
            bytes.append(0x50)
            bytes.append(UInt8(types & 0xFF))
            bytes.append(UInt8(types >> 8))
            bytes.append(contentsOf: "7F85F3Fu;ba48D503Dp,10,288\n".utf8)
        }
        let result = BatchFastPathTests.decodeAllWays(bytes)
        #expect(result.fast == result.reference)
        #expect(result.split == result.reference)
        // Each letter pair's line gives its two values.
        #expect(result.reference.values.count >= 2 * 26 * 26)
    }
}
