/// Which optional fields a decoded value carries (`ColumnarBatch.flags`).
public enum SampleFlags {
    /// The value carried status metadata (`,1X`).
    public static let status: UInt8 = 1
    /// The value carried range metadata (`,2XX`): its entry in `ColumnarBatch.ranges` is valid.
    public static let range: UInt8 = 2
    /// The value carried noise metadata (`,4X`): its entry in `ColumnarBatch.noises` is valid.
    public static let noise: UInt8 = 4
    /// The value was sent with the integer prefix `i`.
    public static let integer: UInt8 = 8
}

/// One decoded value before it becomes a `Sample` or a row of columns.
@usableFromInline package struct RawSample {
    @usableFromInline package var variable: UInt16
    @usableFromInline package var value: Double
    @usableFromInline package var status: UInt8
    @usableFromInline package var range: UInt8
    @usableFromInline package var noise: UInt8
    @usableFromInline package var flags: UInt8

    @inlinable @inline(__always)
    package init(variable: UInt16, value: Double, status: UInt8, range: UInt8, noise: UInt8, flags: UInt8) {
        self.variable = variable
        self.value = value
        self.status = status
        self.range = range
        self.noise = noise
        self.flags = flags
    }

    @inlinable @inline(__always)
    package var sample: Sample {
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
@usableFromInline package protocol RawSampleSink {
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
