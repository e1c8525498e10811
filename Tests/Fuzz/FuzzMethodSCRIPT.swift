// libFuzzer entry point over the MethodSCRIPT decoders, built by Tools/fuzz.sh into one module with
// the sources of Sources/MethodSCRIPTBatch, against MethodSCRIPT built as its own (not part of the
// package build).
//
// Each input is fed to: the ReplyParser whole, in chunks (sizes from the input's first byte) and in
// chunks of changing sizes (from its last byte), the batch decoder on the fast path, on the reference
// path (scalar hex, no fast path) and split across two threads, and PackageDecoder on every line. It
// traps when two paths that must agree do not.

import MethodSCRIPT

/// Executions so far (libFuzzer calls the entry point from one thread).
nonisolated(unsafe) var executions = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMethodSCRIPT(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let chunk = 1 + Int(input.first ?? 0) % 64

    var whole: [UInt64] = []
    let parser = ReplyParser(maximumLineLength: 96)
    parser.feed(input) { event, location in whole.append(fingerprint(event, location)) }
    parser.finish { event, location in whole.append(fingerprint(event, location)) }

    var chunked: [UInt64] = []
    let second = ReplyParser(maximumLineLength: 96)
    var start = 0
    while start < size {
        let end = min(size, start + chunk)
        second.feed(UnsafeRawBufferPointer(rebasing: input[start..<end])) { event, location in
            chunked.append(fingerprint(event, location))
        }
        start = end
    }
    second.finish { event, location in chunked.append(fingerprint(event, location)) }
    precondition(whole == chunked, "chunking changed the events")

    // Chunks of changing sizes, mostly in the parser's small-chunk range (8 to 32 bytes), from a
    // pattern picked by the input's last byte.
    var varied: [UInt64] = []
    let third = ReplyParser(maximumLineLength: 96)
    let pattern = UInt64(input.last ?? 0) &* 0x9E37_79B9_7F4A_7C15
    start = 0
    var step: UInt64 = 0
    while start < size {
        let end = min(size, start + 1 + Int((pattern >> (step % 12 * 5)) % 40))
        third.feed(UnsafeRawBufferPointer(rebasing: input[start..<end])) { event, location in
            varied.append(fingerprint(event, location))
        }
        start = end
        step &+= 1
    }
    third.finish { event, location in varied.append(fingerprint(event, location)) }
    precondition(whole == varied, "changing chunk sizes changed the events")

    let swar = BatchDecoder.decode(input)
    let scalar = ColumnarBatch()
    BatchDecoder.decodeScalarReference(input, into: scalar)
    precondition(swar.count == scalar.count && swar.errors == scalar.errors, "SWAR and scalar batches differ")
    for index in 0..<swar.count {
        precondition(swar.sample(at: index).sameDecoding(as: scalar.sample(at: index)), "SWAR and scalar values differ")
    }
    let split = ColumnarBatch()
    // The split logic on every input; on two threads for one execution in 256 (a thread hand-off per
    // input would slow the fuzzer a hundredfold on a loaded machine).
    executions &+= 1
    BatchDecoder.decodeSplit(input, into: split, minimumSplitBytes: 0, onTwoThreads: executions % 256 == 0)
    precondition(
        split.count == swar.count && split.errors == swar.errors && split.lineCount == swar.lineCount
            && split.packageCount == swar.packageCount && Array(split.lines) == Array(swar.lines),
        "the split batch differs"
    )
    for index in 0..<swar.count {
        precondition(split.sample(at: index).sameDecoding(as: swar.sample(at: index)), "split and serial values differ")
    }

    let samples = UnsafeMutableBufferPointer<Sample>.allocate(
        capacity: PackageDecoder.maximumVariables(lineLength: size)
    )
    samples.initialize(repeating: Sample(variable: .unknown, value: 0))
    defer { samples.deallocate() }
    LineFramer(maximumLineLength: max(size, 1)).feed(input) { line in
        _ = try? PackageDecoder.decode(line: line.bytes, into: samples)
    }
    return 0
}

/// A cheap summary of an event for comparing streams.
func fingerprint(_ event: ReplyEvent, _ location: LineLocation) -> UInt64 {
    var hash = UInt64(location.line) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(location.offset)
    switch event {
    case .package(let samples):
        for (index, sample) in samples.enumerated() {
            hash ^= sample.value.bitPattern &+ UInt64(sample.variable.rawValue) &+ UInt64(index << 8 | samples.count)
            hash ^= UInt64(sample.status.rawValue) << 16 | UInt64(sample.range?.rawValue ?? 0) << 24
            hash = hash &* 0x9E37_79B9_7F4A_7C15
        }
    case .malformed(let error, let raw):
        hash ^= UInt64(error.offset) << 20 ^ UInt64(raw.count) ^ UInt64(error.column) << 40
    case .text(let bytes), .version(let bytes, _):
        hash ^= UInt64(bytes.count) << 32
    case .deviceError(let reply):
        hash ^= UInt64(reply.code.rawValue) << 32 ^ UInt64(bitPattern: Int64(reply.scriptLine ?? -1))
    default:
        hash ^= 0x5555
    }
    return hash
}
