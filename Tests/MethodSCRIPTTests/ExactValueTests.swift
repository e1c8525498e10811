import MethodSCRIPT
import MethodSCRIPTBatch
import Testing

/// Every decode path gives the double nearest to the decimal the device sent, so that its shortest
/// round-trip text is that decimal: `0.03`, not `0.030000000000000002`.
@Suite struct ExactValueTests {
    /// The prefix bytes of the spec table, each with its power of ten.
    static let prefixes: [(byte: UInt8, exponent: Int)] = (0...255).map(UInt8.init).compactMap { byte in
        ValueEncoding.prefixExponent(byte).map { (byte, $0) }
    }

    /// One generated value: its mantissa, prefix and the line it went into.
    struct Case {
        let raw: Int
        let prefix: UInt8
        let exponent: Int

        /// The decimal the device sent, parsed by the standard library (correctly rounded).
        var expected: Double { Double("\(raw)e\(exponent)")! }
    }

    /// Seeded mantissas for every prefix: uniform over the 28-bit range, and short decimals (a few
    /// digits times a power of ten, where multiplying by an inexact factor shows its error).
    static func cases(seed: UInt64, perPrefix: Int) -> [Case] {
        var random = SplitMix64(state: seed)
        var cases: [Case] = []
        for (byte, exponent) in prefixes {
            for fixed in [0, 1, -1, 30, -400, -50, 63_095_734, PackageEncoder.rawRange.lowerBound] {
                cases.append(Case(raw: fixed, prefix: byte, exponent: exponent))
            }
            cases.append(Case(raw: PackageEncoder.rawRange.upperBound, prefix: byte, exponent: exponent))
            for index in 0..<perPrefix {
                let raw: Int
                if index % 2 == 0 {
                    raw = Int.random(in: PackageEncoder.rawRange, using: &random)
                } else {
                    let digits = Int.random(in: -999...999, using: &random)
                    var power = 1
                    for _ in 0..<Int.random(in: 0...5, using: &random) { power *= 10 }
                    raw = digits * power
                }
                cases.append(Case(raw: raw, prefix: byte, exponent: exponent))
            }
        }
        return cases
    }

    /// `P` lines, two to four values each, in the shapes the decoders treat differently: plain, with
    /// the `,1s,2rr` metadata of the fast path, with a lone status (the general path), and with a
    /// `nan` value (which sends a whole line to the general path).
    static func lines(_ cases: [Case]) -> (bytes: [UInt8], expected: [Double]) {
        var bytes: [UInt8] = []
        var expected: [Double] = []
        var index = 0
        var line = 0
        while index < cases.count {
            let count = min(2 + line % 3, cases.count - index)
            bytes.append(0x50)
            for slot in 0..<count {
                if slot > 0 { bytes.append(0x3B) }
                if line % 7 == 3 && slot == 0 {
                    PackageEncoder.append(.appliedPotential, raw: nil, prefix: 0x20, to: &bytes)
                    expected.append(.nan)
                    bytes.append(0x3B)
                }
                let item = cases[index + slot]
                switch (line + slot) % 3 {
                case 0: PackageEncoder.append(.current, raw: item.raw, prefix: item.prefix, to: &bytes)
                case 1:
                    PackageEncoder.append(
                        .current,
                        raw: item.raw,
                        prefix: item.prefix,
                        status: .ok,
                        range: MeasurementRange(rawValue: 0x86),
                        to: &bytes
                    )
                default: PackageEncoder.append(.current, raw: item.raw, prefix: item.prefix, status: .ok, to: &bytes)
                }
                expected.append(item.expected)
            }
            bytes.append(0x0A)
            index += count
            line += 1
        }
        return (bytes, expected)
    }

    /// Bitwise equal, or both NaN; and the same shortest text.
    static func check(_ got: [Double], _ want: [Double], path: String) {
        #expect(got.count == want.count, "\(path): \(got.count) values, want \(want.count)")
        for (index, (value, expected)) in zip(got, want).enumerated() {
            let same = value.bitPattern == expected.bitPattern || (value.isNaN && expected.isNaN)
            if !same || String(value) != String(expected) {
                Issue.record("\(path) value \(index): \(value), want \(expected)")
                return
            }
        }
    }

    @Test func everyPrefixDecodesToTheShortestDecimal() {
        let cases = Self.cases(seed: 0x4558_4143_5456_414C, perPrefix: 4_000)
        #expect(Self.prefixes.count == 14)
        for item in cases {
            let text = String(item.expected)
            // The decimal as written (`30e-3`) has the same value as the shortest text (`0.03`).
            #expect(Double(text) == item.expected)
        }
        let (bytes, expected) = Self.lines(cases)

        let streamed = Recorder.events(bytes).compactMap { item -> Double? in
            if case .sample(let record, _, _) = item.event { return record.sample.value }
            return nil
        }
        Self.check(streamed, expected, path: "ReplyParser, whole buffer")
        let chunked = Recorder.events(bytes, chunks: [20, 7, 244]).compactMap { item -> Double? in
            if case .sample(let record, _, _) = item.event { return record.sample.value }
            return nil
        }
        Self.check(chunked, expected, path: "ReplyParser, small chunks")

        let batch = BatchDecoder.decode(bytes)
        #expect(batch.errors.isEmpty)
        Self.check(Array(batch.values), expected, path: "BatchDecoder")
        bytes.withUnsafeBytes { buffer in
            let reference = ColumnarBatch()
            BatchDecoder.decodeScalarReference(buffer, into: reference)
            Self.check(Array(reference.values), expected, path: "BatchDecoder scalar reference")
            let parallel = ColumnarBatch()
            BatchDecoder.decodeInParallel(buffer, into: parallel, minimumSplitBytes: 1)
            Self.check(Array(parallel.values), expected, path: "BatchDecoder two threads")
        }

        var perLine: [Double] = []
        var start = 0
        bytes.withUnsafeBytes { buffer in
            let samples = UnsafeMutableBufferPointer<Sample>.allocate(capacity: 16)
            defer { samples.deallocate() }
            for end in bytes.indices where bytes[end] == 0x0A {
                let line = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
                do {
                    let count = try PackageDecoder.decode(line: line, into: samples)
                    perLine += samples[0..<count].map(\.value)
                } catch {
                    Issue.record("line at \(start): \(error)")
                }
                start = end + 1
            }
        }
        Self.check(perLine, expected, path: "PackageDecoder")
    }

    @Test func theArtefactsOfTheIssueAreGone() {
        let line = Array("Pba800001Em;ba7FFFE70m;ba7FFFFCEu;dcBC2C3B6m\n".utf8)
        let batch = BatchDecoder.decode(line)
        #expect(batch.errors.isEmpty)
        #expect(Array(batch.values).map { String($0) } == ["0.03", "-0.4", "-5e-05", "63095.734"])
    }
}
