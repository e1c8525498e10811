import MethodSCRIPT

/// Decoded values of a whole buffer in columns, one entry per value (the fast path for files and
/// benchmarks). Reuse one batch across calls of `BatchDecoder.decode(_:into:)` to decode without
/// allocating: the columns grow only when a buffer needs more room than any before.
public final class ColumnarBatch {
    /// Values decoded.
    public private(set) var count = 0
    /// Lines seen (all kinds).
    public internal(set) var lineCount = 0
    /// `P` lines decoded.
    public internal(set) var packageCount = 0
    /// Malformed lines, in order; their values are not in the columns.
    public internal(set) var errors: [BatchError] = []
    private(set) var capacity = 0

    var lineColumn: UnsafeMutablePointer<Int32>
    var variableColumn: UnsafeMutablePointer<UInt16>
    var valueColumn: UnsafeMutablePointer<Double>
    var statusColumn: UnsafeMutablePointer<UInt8>
    var rangeColumn: UnsafeMutablePointer<UInt8>
    var noiseColumn: UnsafeMutablePointer<UInt8>
    var flagsColumn: UnsafeMutablePointer<UInt8>

    /// An empty batch with room for `capacity` values; a decode reserves whatever more its buffer needs.
    public init(capacity: Int = 0) {
        lineColumn = .allocate(capacity: 1)
        variableColumn = .allocate(capacity: 1)
        valueColumn = .allocate(capacity: 1)
        statusColumn = .allocate(capacity: 1)
        rangeColumn = .allocate(capacity: 1)
        noiseColumn = .allocate(capacity: 1)
        flagsColumn = .allocate(capacity: 1)
        reserve(capacity)
    }

    deinit { free() }

    /// The 1-based input line of each value.
    public var lines: UnsafeBufferPointer<Int32> { UnsafeBufferPointer(start: lineColumn, count: count) }
    /// The variable type of each value (`VariableType.rawValue`).
    public var variables: UnsafeBufferPointer<UInt16> { UnsafeBufferPointer(start: variableColumn, count: count) }
    /// Each value in its SI base unit (NaN for the `nan` form).
    public var values: UnsafeBufferPointer<Double> { UnsafeBufferPointer(start: valueColumn, count: count) }
    /// Status bits of each value (0 when absent).
    public var statuses: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: statusColumn, count: count) }
    /// Range index of each value (valid where `flags` has `SampleFlags.range`).
    public var ranges: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: rangeColumn, count: count) }
    /// Noise of each value (valid where `flags` has `SampleFlags.noise`).
    public var noises: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: noiseColumn, count: count) }
    /// `SampleFlags` bits of each value.
    public var flags: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: flagsColumn, count: count) }

    /// Value `index` as a `Sample`.
    public func sample(at index: Int) -> Sample {
        precondition(index >= 0 && index < count, "sample index out of range")
        return RawSample(
            variable: variableColumn[index],
            value: valueColumn[index],
            status: statusColumn[index],
            range: rangeColumn[index],
            noise: noiseColumn[index],
            flags: flagsColumn[index]
        ).sample
    }

    /// Empties the batch, keeping its capacity.
    public func removeAll() {
        count = 0
        lineCount = 0
        packageCount = 0
        errors.removeAll(keepingCapacity: true)
    }

    /// Makes room for `capacity` values in total.
    public func reserve(_ capacity: Int) {
        guard capacity > self.capacity else { return }
        func grow<T>(_ column: inout UnsafeMutablePointer<T>) {
            let new = UnsafeMutablePointer<T>.allocate(capacity: capacity)
            new.moveInitialize(from: column, count: count)
            column.deallocate()
            column = new
        }
        grow(&lineColumn)
        grow(&variableColumn)
        grow(&valueColumn)
        grow(&statusColumn)
        grow(&rangeColumn)
        grow(&noiseColumn)
        grow(&flagsColumn)
        self.capacity = capacity
    }

    func setCount(_ count: Int) { self.count = count }

    /// Moves `count` values from column index `source` down to `target` (`target <= source`), adding
    /// `lineShift` to their line numbers.
    func moveValues(from source: Int, to target: Int, count: Int, lineShift: Int32) {
        precondition(target <= source && source + count <= capacity, "values move down inside the columns")
        guard count > 0 else { return }
        for index in 0..<count { lineColumn[target + index] = lineColumn[source + index] &+ lineShift }
        guard target < source else { return }
        (variableColumn + target).update(from: variableColumn + source, count: count)
        (valueColumn + target).update(from: valueColumn + source, count: count)
        (statusColumn + target).update(from: statusColumn + source, count: count)
        (rangeColumn + target).update(from: rangeColumn + source, count: count)
        (noiseColumn + target).update(from: noiseColumn + source, count: count)
        (flagsColumn + target).update(from: flagsColumn + source, count: count)
    }

    /// A sink that writes values from column index `index` on.
    func sink(at index: Int) -> ColumnSink {
        ColumnSink(
            line: lineColumn,
            variable: variableColumn,
            value: valueColumn,
            status: statusColumn,
            range: rangeColumn,
            noise: noiseColumn,
            flags: flagsColumn,
            count: index
        )
    }

    private func free() {
        lineColumn.deallocate()
        variableColumn.deallocate()
        valueColumn.deallocate()
        statusColumn.deallocate()
        rangeColumn.deallocate()
        noiseColumn.deallocate()
        flagsColumn.deallocate()
    }
}

/// A malformed line of a batch: the error and where the raw line is in the input.
public struct BatchError: Hashable, Sendable {
    /// Why the line is malformed, located in the input: 1-based line, byte offset and column.
    public let error: ParseError
    /// The raw line's byte range in the input buffer (newline excluded).
    public let lineRange: Range<Int>
}

/// Writes values straight into the batch's columns.
struct ColumnSink: RawSampleSink {
    let line: UnsafeMutablePointer<Int32>
    let variable: UnsafeMutablePointer<UInt16>
    let value: UnsafeMutablePointer<Double>
    let status: UnsafeMutablePointer<UInt8>
    let range: UnsafeMutablePointer<UInt8>
    let noise: UnsafeMutablePointer<UInt8>
    let flags: UnsafeMutablePointer<UInt8>
    var count: Int
    var lineNumber: Int32 = 0

    @inline(__always)
    mutating func put(_ sample: RawSample) {
        line[count] = lineNumber
        variable[count] = sample.variable
        value[count] = sample.value
        status[count] = sample.status
        range[count] = sample.range
        noise[count] = sample.noise
        flags[count] = sample.flags
        count &+= 1
    }
}
