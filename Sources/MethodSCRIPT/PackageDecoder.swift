/// Decodes the body of a `P` line: `<var>(;<var>)*` with `<var> = <type:2><hex:7><prefix:1>(,<meta>)*`.
///
/// The decoder works on raw bytes and never allocates: values go to a `RawSampleSink`. The seven value
/// digits are decoded by SWAR (`HexDecoding.swar`); the prefix byte is looked up in the generated
/// 256-entry divisor and multiplier tables and never hex-parsed. A value is the double nearest to the
/// decimal the device sent (`DecodeTables.value`).
public enum PackageDecoder {
    /// Decodes one `P` line (first byte `P`, newline excluded) into `samples`, returning how many it
    /// wrote. `samples` must have room for `maximumVariables(lineLength: line.count)` values (checked).
    /// Throws with `line = 0` and the `column`/`offset` of the offending byte in `line`.
    public static func decode(
        line: UnsafeRawBufferPointer,
        into samples: UnsafeMutableBufferPointer<Sample>
    ) throws(ParseError) -> Int {
        precondition(
            samples.count >= maximumVariables(lineLength: line.count),
            "the sample buffer must hold maximumVariables(lineLength:) values"
        )
        guard let base = line.baseAddress, line.count > 0, base.load(as: UInt8.self) == 0x50 else {
            let first = line.first ?? 0x0A
            throw ParseError(line: 0, offset: 0, column: 0, reason: .unknownLine(first: first))
        }
        var sink = SampleBufferSink(buffer: samples)
        do {
            _ = try withTables { tables throws(PackageFailure) in
                try decodeBody(base + 1, end: base + line.count, tables: tables, hex: SWARHex.self, sink: &sink)
            }
        } catch {
            let column = error.index(from: base)
            throw ParseError(line: 0, offset: column, column: column, reason: error.reason)
        }
        return sink.count
    }

    /// The most variables a line of `lineLength` bytes can hold (each takes at least 11 bytes).
    public static func maximumVariables(lineLength: Int) -> Int { lineLength / 11 + 1 }

    /// Runs `body` with pointers to the generated tables (hoists the table access out of loops).
    @inlinable @inline(__always)
    package static func withTables<R, E: Error>(_ body: (DecodeTables) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = ValueEncoding.prefixDivisor.withUnsafeBufferPointer { divisors in
            ValueEncoding.prefixMultiplier.withUnsafeBufferPointer { multipliers in
                ValueEncoding.hexDigit.withUnsafeBufferPointer { digits in
                    let tables = DecodeTables(
                        divisor: divisors.baseAddress!,
                        multiplier: multipliers.baseAddress!,
                        hex: digits.baseAddress!
                    )
                    do throws(E) {
                        return .success(try body(tables))
                    } catch {
                        return .failure(error)
                    }
                }
            }
        }
        return try result.get()
    }

    /// The bytes `     nan` as one little-endian word.
    @usableFromInline static let nanWord: UInt64 = 0x6E61_6E20_2020_2020

    /// Decodes variables from `start` (the byte after `P`) up to the line end: the first `\n` or `end`.
    /// Returns the line end. Every read stays below `end`. A line that ends inside a field fails with
    /// `.truncated` at `end`; when `end` lies beyond the line (batch), the failure is at the newline
    /// and the caller turns it into `.truncated` there.
    @inlinable @inline(__always)
    package static func decodeBody<H: HexStrategy, S: RawSampleSink>(
        _ start: UnsafeRawPointer,
        end: UnsafeRawPointer,
        tables: DecodeTables,
        hex: H.Type,
        sink: inout S
    ) throws(PackageFailure) -> UnsafeRawPointer {
        var p = start
        if p == end || p.load(as: UInt8.self) == 0x0A { throw PackageFailure(p, .emptyPackage) }
        while true {
            guard end - p >= 10 else { throw PackageFailure(end, .truncated) }
            let t0 = p.load(as: UInt8.self) &- 0x61
            let t1 = p.load(fromByteOffset: 1, as: UInt8.self) &- 0x61
            guard t0 < 26, t1 < 26 else { throw PackageFailure(p, .badVariableType) }
            let word = UInt64(littleEndian: (p + 2).loadUnaligned(as: UInt64.self))
            let number = H.decode(word, at: p + 2, tables: tables)
            var value: Double
            var flags: UInt8 = 0
            if number != HexDecoding.invalid {
                let prefix = UInt8(truncatingIfNeeded: word >> 56)
                let mantissa = Int32(bitPattern: number) &- MethodSCRIPTLimits.valueOffset
                guard let scaled = tables.value(mantissa, prefix: prefix) else {
                    throw PackageFailure(p + 9, .badPrefix(prefix))
                }
                if prefix == ValueEncoding.integerPrefix { flags |= SampleFlags.integer }
                value = scaled
            } else if word == nanWord {
                value = .nan
            } else {
                throw PackageFailure(firstBadDigit(p + 2, tables: tables), .badHexDigits)
            }
            let variable = UInt16(t0 &+ 0x61) << 8 | UInt16(t1 &+ 0x61)
            p += 10
            var status: UInt8 = 0
            var range: UInt8 = 0
            var noise: UInt8 = 0
            while p < end, p.load(as: UInt8.self) == 0x2C {
                guard end - p >= 3 else { throw PackageFailure(end, .truncated) }
                let kind = p.load(fromByteOffset: 1, as: UInt8.self)
                let d0 = tables.hex[Int(p.load(fromByteOffset: 2, as: UInt8.self))]
                guard d0 != 0xFF else { throw PackageFailure(p + 2, .badMetadata) }
                switch kind {
                case 0x31:
                    status = d0
                    flags |= SampleFlags.status
                    p += 3
                case 0x32:
                    guard end - p >= 4 else { throw PackageFailure(end, .truncated) }
                    let d1 = tables.hex[Int(p.load(fromByteOffset: 3, as: UInt8.self))]
                    guard d1 != 0xFF else { throw PackageFailure(p + 3, .badMetadata) }
                    range = d0 << 4 | d1
                    flags |= SampleFlags.range
                    p += 4
                case 0x34:
                    noise = d0
                    flags |= SampleFlags.noise
                    p += 3
                case 0x30...0x39:
                    // An unknown metadata type: its hex payload is skipped.
                    p += 3
                    while p < end, tables.hex[Int(p.load(as: UInt8.self))] != 0xFF { p += 1 }
                default:
                    throw PackageFailure(p + 1, .badMetadata)
                }
                if p < end {
                    let next = p.load(as: UInt8.self)
                    guard next == 0x2C || next == 0x3B || next == 0x0A || next == 0x0D else {
                        throw PackageFailure(p, .badMetadata)
                    }
                }
            }
            sink.put(
                RawSample(variable: variable, value: value, status: status, range: range, noise: noise, flags: flags)
            )
            if p == end { return p }
            let next = p.load(as: UInt8.self)
            if next == 0x0A { return p }
            if next == 0x0D, p + 1 == end || (p + 1).load(as: UInt8.self) == 0x0A { return p + 1 }
            guard next == 0x3B else { throw PackageFailure(p, .unexpectedByte(next)) }
            p += 1
        }
    }

    /// The first of the seven digits that is no hex digit (error path only).
    @usableFromInline static func firstBadDigit(_ digits: UnsafeRawPointer, tables: DecodeTables) -> UnsafeRawPointer {
        for index in 0..<7 where tables.hex[Int(digits.load(fromByteOffset: index, as: UInt8.self))] == 0xFF {
            return digits + index
        }
        return digits
    }
}

/// Where and why decoding a package failed (turned into a located `ParseError` by the caller).
@usableFromInline package struct PackageFailure: Error {
    /// The address of the offending byte.
    @usableFromInline let address: UInt
    @usableFromInline package let reason: ParseError.Reason

    @inlinable @inline(__always)
    package init(_ position: UnsafeRawPointer, _ reason: ParseError.Reason) {
        self.address = UInt(bitPattern: position)
        self.reason = reason
    }

    /// The offending byte's index from `base`.
    @inlinable @inline(__always)
    package func index(from base: UnsafeRawPointer) -> Int { Int(bitPattern: address &- UInt(bitPattern: base)) }
}
