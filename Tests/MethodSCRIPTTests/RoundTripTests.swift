import MethodSCRIPT
import MethodSCRIPTBatch
import Testing

/// Every variable type, prefix and range of the spec tables survives encode → decode.
@Suite struct RoundTripTests {
    func decodeAll(_ bytes: [UInt8]) -> [LocatedEvent] { Recorder.events(bytes) }

    @Test func everyVariableTypePrefixAndRangeRoundTrips() throws {
        var random = SplitMix64(state: 7)
        var bytes: [UInt8] = []
        var expected: [Sample] = []
        let prefixes = (0...255).map(UInt8.init).filter { ValueEncoding.prefixFactor[Int($0)] != 0 }
        var ranges: [UInt8] = []
        for family in DeviceFamily.allCases {
            for kind in [RangeKind.current, .potential] {
                ranges += (0...255).map(UInt8.init).filter {
                    MeasurementRange.info(family: family, kind: kind, index: $0) != nil
                }
            }
        }
        #expect(prefixes.count == 14)
        #expect(ranges.count >= 70)
        var rangeIndex = 0
        for variable in VariableType.known {
            for prefix in prefixes {
                let raw = Int.random(in: PackageEncoder.rawRange, using: &random)
                let range = MeasurementRange(rawValue: ranges[rangeIndex % ranges.count])
                rangeIndex += 1
                let status = PackageStatus(rawValue: UInt8(rangeIndex % 16))
                bytes.append(0x50)
                PackageEncoder.append(variable, raw: raw, prefix: prefix, status: status, range: range, to: &bytes)
                bytes.append(0x0A)
                let value = Double("\(raw)e\(ValueEncoding.prefixExponent(prefix)!)")!
                let integer = prefix == ValueEncoding.integerPrefix
                expected.append(
                    Sample(variable: variable, value: value, status: status, range: range, isInteger: integer)
                )
            }
        }
        let decoded = decodeAll(bytes).compactMap { item -> Sample? in
            if case .sample(let record, _, _) = item.event { return record.sample }
            return nil
        }
        #expect(decoded.count == expected.count)
        for (got, want) in zip(decoded, expected) where !got.sameDecoding(as: want) {
            Issue.record("\(got) != \(want)")
            break
        }
        let batch = BatchDecoder.decode(bytes)
        #expect(batch.count == expected.count)
        #expect(batch.errors.isEmpty)
        for index in 0..<batch.count where !batch.sample(at: index).sameDecoding(as: expected[index]) {
            Issue.record("batch \(index): \(batch.sample(at: index)) != \(expected[index])")
            break
        }
    }

    @Test func bestEncodingKeepsSevenSignificantDigits() throws {
        for value in [-0.499905, 57.847747e-6, 9885.956, 200_000.0, 1e-17, -3.2e17] {
            let line = PackageEncoder.line([Sample(variable: .current, value: value)])
            guard case .sample(let record, _, _) = decodeAll(line).first?.event else {
                Issue.record("no sample for \(value)")
                continue
            }
            #expect(abs(record.sample.value - value) <= abs(value) * 1e-7)
        }
    }
}
