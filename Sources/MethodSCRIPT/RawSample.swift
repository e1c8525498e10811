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
protocol RawSampleSink {
    /// Values written so far (set back to drop the values of a line).
    var count: Int { get set }
    mutating func put(_ sample: RawSample)
}

/// Writes `Sample`s into a caller's buffer.
struct SampleBufferSink: RawSampleSink {
    let buffer: UnsafeMutableBufferPointer<Sample>
    var count = 0

    @inline(__always)
    mutating func put(_ sample: RawSample) {
        guard count < buffer.count else { return }
        buffer[count] = sample.sample
        count += 1
    }
}
