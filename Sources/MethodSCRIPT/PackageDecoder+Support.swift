/// Pointers to the generated tables, valid inside `PackageDecoder.withTables`.
struct DecodeTables {
    /// `ValueEncoding.prefixDivisor`: 10^-k for a prefix of exponent k ≤ 0, else 0.
    let divisor: UnsafePointer<Double>
    /// `ValueEncoding.prefixMultiplier`: 10^k for a prefix of exponent k ≥ 0, else 0.
    let multiplier: UnsafePointer<Double>
    let hex: UnsafePointer<UInt8>

    /// Copies of the generated tables that the caller owns (and frees with `deallocate`): a parser
    /// that decodes a line at a time keeps them instead of taking the tables' addresses per line.
    static func allocateCopy() -> DecodeTables {
        DecodeTables(
            divisor: copy(of: ValueEncoding.prefixDivisor),
            multiplier: copy(of: ValueEncoding.prefixMultiplier),
            hex: copy(of: ValueEncoding.hexDigit)
        )
    }

    private static func copy<T>(of table: [T]) -> UnsafePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: table.count)
        pointer.initialize(from: table, count: table.count)
        return UnsafePointer(pointer)
    }

    func deallocate() {
        divisor.deallocate()
        multiplier.deallocate()
        hex.deallocate()
    }

    /// The value of `mantissa` (offset already removed) with the prefix byte `prefix`, or `nil` when
    /// the byte is no prefix: the exact integer divided by an exact 10^k, or multiplied by one — a
    /// single rounding, so the double nearest to the decimal the device sent (`30` with `m` is 0.03,
    /// not the 0.030000000000000002 of multiplying by the inexact 1e-3).
    @inline(__always)
    func value(_ mantissa: Int32, prefix: UInt8) -> Double? {
        let divisor = divisor[Int(prefix)]
        if divisor != 0 { return Double(mantissa) / divisor }
        let multiplier = multiplier[Int(prefix)]
        return multiplier != 0 ? Double(mantissa) * multiplier : nil
    }
}

/// Where and why decoding a package failed (turned into a located `ParseError` by the caller).
struct PackageFailure: Error {
    /// The address of the offending byte.
    let address: UInt
    let reason: ParseError.Reason

    @inline(__always)
    init(_ position: UnsafeRawPointer, _ reason: ParseError.Reason) {
        self.address = UInt(bitPattern: position)
        self.reason = reason
    }

    /// The offending byte's index from `base`.
    @inline(__always)
    func index(from base: UnsafeRawPointer) -> Int { Int(bitPattern: address &- UInt(bitPattern: base)) }
}

/// Which optional fields a decoded value carries (`ColumnarBatch.flags`).
public enum SampleFlags {
    public static let status: UInt8 = 1
    public static let range: UInt8 = 2
    public static let noise: UInt8 = 4
    public static let integer: UInt8 = 8
}

/// One decoded value before it becomes a `Sample` or a row of columns.
struct RawSample {
    var variable: UInt16
    var value: Double
    var status: UInt8
    var range: UInt8
    var noise: UInt8
    var flags: UInt8

    @inline(__always)
    var sample: Sample {
        Sample(
            variable: VariableType(rawValue: variable),
            value: value,
            status: PackageStatus(rawValue: status),
            range: flags & SampleFlags.range != 0 ? MeasurementRange(rawValue: range) : nil,
            noise: flags & SampleFlags.noise != 0 ? noise : nil,
            isInteger: flags & SampleFlags.integer != 0
        )
    }
}

/// Where decoded values go.
protocol SampleSink {
    /// Values written so far (set back to drop the values of a line).
    var count: Int { get set }
    mutating func put(_ sample: RawSample)
}

/// Writes `Sample`s into a caller's buffer.
struct SampleBufferSink: SampleSink {
    let buffer: UnsafeMutableBufferPointer<Sample>
    var count = 0

    @inline(__always)
    mutating func put(_ sample: RawSample) {
        guard count < buffer.count else { return }
        buffer[count] = sample.sample
        count += 1
    }
}

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
