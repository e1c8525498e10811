import MethodSCRIPT
import Testing

/// The worked examples of the MethodSCRIPT reference decode exactly.
@Suite struct WorkedExampleTests {
    func decode(_ text: String) throws -> [Sample] {
        let bytes = Array(text.utf8)
        let buffer = UnsafeMutableBufferPointer<Sample>.allocate(capacity: 16)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: Sample(variable: .unknown, value: 0))
        let count = try bytes.withUnsafeBytes { try PackageDecoder.decode(line: $0, into: buffer) }
        return Array(buffer[0..<count])
    }

    func close(_ value: Double, _ expected: Double, relative: Double = 1e-12) -> Bool {
        abs(value - expected) <= abs(expected) * relative
    }

    @Test func lsvPointDecodesToPotentialCurrentStatusAndHighSpeedRange() throws {
        let samples = try decode("Pda7F85F3Fu;ba48D503Dp,10,288")
        #expect(samples.count == 2)
        #expect(samples[0].variable == .appliedPotential)
        #expect(close(samples[0].value, -0.499905))
        #expect(samples[0].range == nil)
        #expect(samples[1].variable == .current)
        #expect(close(samples[1].value, -57.847747e-6))
        #expect(samples[1].status == .ok)
        let range = try #require(samples[1].range)
        #expect(range.rawValue == 0x88)
        #expect(range.isHighSpeed(on: .pico))
        #expect(!range.isHighSpeed(on: .emstat4LR))
        #expect(range.info(family: .pico, variable: .current)?.label == "1 mA (high speed)")
        #expect(range.info(family: .pico, variable: .current)?.fullScale == 1e-3)
    }

    @Test func eisPointDecodesFrequencyAndImpedance() throws {
        for line in ["PdcDF5DFF4u;cc896D904m;cd82DB1A8u", "PdcDF5DFF4u;cc896D904m,10,287;cd82DB1A8u,10,287"] {
            let samples = try decode(line)
            #expect(samples.map(\.variable) == [.appliedFrequency, .zReal, .zImaginary])
            #expect(close(samples[0].value, 99.999732))
            #expect(close(samples[1].value, 9885.956))
            #expect(close(samples[2].value, 2.994600))
            #expect(samples[0].variable.unit == "Hz")
            #expect(samples[1].variable.unit == "Ω")
        }
    }

    @Test func otherDocumentedLinesDecode() throws {
        let cv = try decode("Pda84E63DAn;ba82AB973f,14,284")
        #expect(close(cv[0].value, 5.13737e-3, relative: 1e-6))
        #expect(close(cv[1].value, 2.799987e-9, relative: 1e-6))
        #expect(cv[1].status == .underload)
        #expect(cv[1].range?.info(family: .pico, variable: .current)?.label == "25 uA (high speed)")
        let atto = try decode("Pda807A1CAu;ba6FFA74Ba,14,200")
        #expect(close(atto[0].value, 0.50017, relative: 1e-6))
        #expect(close(atto[1].value, -16.8e-12, relative: 1e-3))
        #expect(atto[1].range?.info(family: .pico, variable: .current)?.label == "100 nA")
        let manual = try decode("Pda8000800u;ba8000800u,10,20B")
        #expect(close(manual[0].value, 2.048e-3))
        #expect(close(manual[1].value, 2.048e-3))
        #expect(manual[1].range?.info(family: .pico, variable: .current)?.label == "5 mA")
        let small = try decode("Pda800000Am;da7FFFFF6m;dcDF5CB18n")
        #expect(close(small[0].value, 0.01))
        #expect(close(small[1].value, -0.01))
        #expect(close(small[2].value, 0.099994392, relative: 1e-9))
    }

    @Test func nanIntegerAndNoiseForms() throws {
        let samples = try decode("Pda     nan;eb8000064i,1A,289,43")
        #expect(samples[0].isNaN)
        #expect(samples[1].isInteger)
        #expect(samples[1].value == 100)
        #expect(samples[1].status == [.overload, .overloadWarning])
        #expect(samples[1].range?.rawValue == 0x89)
        #expect(samples[1].noise == 3)
    }

    @Test func badPackagesAreLocated() throws {
        let cases: [(String, Int, ParseError.Reason)] = [
            ("Pda7F85G3Fu", 7, .badHexDigits),
            ("Pda7F85F3Fx", 10, .badPrefix(0x78)),
            ("PDa7F85F3Fu", 1, .badVariableType),
            ("Pda7F85F3Fu;", 12, .truncated),
            ("P", 1, .emptyPackage),
            ("Pda7F85F3Fu,2G8", 13, .badMetadata),
            ("Pda7F85F3Fu:ba", 11, .unexpectedByte(0x3A)),
        ]
        for (line, column, reason) in cases {
            #expect(throws: ParseError(line: 0, offset: column, column: column, reason: reason)) {
                _ = try decode(line)
            }
        }
    }
}
