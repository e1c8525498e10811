import Foundation
import Testing

@testable import PicoSimulator

@Suite struct PicoValueFormatTests {
    /// Values and fields from published EmStat Pico output (see the doc comment of `PicoValueFormat`).
    @Test(
        arguments: [
            (-0.499905, "7F85F3Fu"),
            (-57.847747e-6, "48D503Dp"),
            (99.999732, "DF5DFF4u"),
            (9885.956, "896D904m"),
            (5.13737e-3, "84E63DAn"),
            (2.799987e-9, "82AB973f"),
            (-16.799925e-12, "6FFA74Ba"),
            (0.50017, "807A1CAu"),
            (-0.449717, "7F9234Bu"),
            (0.453668, "806EC24u"),
        ]
    )
    func documentedDeviceFields(value: Double, field: String) {
        #expect(PicoValueFormat.encode(value) == field)
    }

    @Test func nanIsFiveSpacesAndNan() {
        #expect(PicoValueFormat.encode(.nan) == "     nan")
        #expect(PicoValueFormat.encode(.infinity) == "     nan")
    }

    @Test func zeroAndIntegers() {
        #expect(PicoValueFormat.encode(0) == "8000000a")
        var buffer: [UInt8] = []
        PicoValueFormat.appendInteger(11, to: &buffer)
        PicoValueFormat.appendInteger(-1, to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "800000Bi7FFFFFFi")
    }

    @Test func prefixChangesExactlyAtTwoToThe27() {
        // 134217727 n fits; 134217728 n does not, so the device moves to µ.
        #expect(PicoValueFormat.encode(0.134_217_727) == "FFFFFFFn")
        #expect(PicoValueFormat.encode(0.134_217_728) == "8020C4Au")
        #expect(PicoValueFormat.encode(-0.134_217_727) == "0000001n")
    }

    @Test func roundTripKeepsMostPrecisionOverTheWholeScale() {
        var state: UInt64 = 12345
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let mantissa = Double(state >> 11) * 0x1.0p-53 * 2 - 1
            let exponent = Int((state >> 3) % 40) - 20
            let value = mantissa * pow(10, Double(exponent))
            let field = PicoValueFormat.encode(value)
            let decoded = ReplyCheck.decode(field[...])
            #expect(decoded != nil, "\(value) → \(field)")
            guard let decoded else { continue }
            // The smallest prefix keeps |raw| ≥ 2^27 / 1000 (relative error below 4e-6) except in atto, the
            // smallest prefix, where the error is at most half an atto-unit.
            let tolerance = max(abs(value) * 4e-6, 0.5e-18 * (1 + 1e-9))
            #expect(abs(decoded - value) <= tolerance, "\(value) → \(field) → \(decoded)")
        }
    }
}
