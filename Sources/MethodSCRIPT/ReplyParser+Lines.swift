extension ReplyParser {
    /// Every line kind but data, text, abort and error lines.
    func structure(
        _ first: UInt8,
        _ bytes: UnsafeRawBufferPointer,
        whole: UnsafeRawBufferPointer,
        column: Int,
        _ location: LineLocation,
        _ handler: (ReplyEvent, LineLocation) -> Void
    ) -> LineFailure? {
        let kind = ReplyLineKind.of(firstByte: first)
        switch kind {
        case .executeAccepted:
            handler(.executeAccepted, location)
            guard bytes.count > 1 else { return nil }
            return parseLine(UnsafeRawBufferPointer(rebasing: bytes.dropFirst()), whole: whole, location, handler)
        case .measurementLoopStart, .scanStart:
            guard bytes.count == 5, let id = Self.hex4(bytes, from: 1) else {
                return LineFailure(column: column + min(bytes.count, 5), reason: .badLoopStart)
            }
            let scope: Scope = kind == .scanStart ? .scan : .measurementLoop
            if let failure = push(scope, column: column) { return failure }
            handler(kind == .scanStart ? .scanStart(id) : .measurementLoopStart(id), location)
            return nil
        case .loopStart:
            guard bytes.count == 1 else { return LineFailure(column: column + 1, reason: .unexpectedByte(bytes[1])) }
            if let failure = push(.loop, column: column) { return failure }
            handler(.loopStart, location)
            return nil
        case .measurementLoopEnd, .scanEnd, .loopEnd:
            guard bytes.count == 1 else { return LineFailure(column: column + 1, reason: .unexpectedByte(bytes[1])) }
            let scope: Scope = kind == .measurementLoopEnd ? .measurementLoop : kind == .scanEnd ? .scan : .loop
            if let failure = pop(scope, byte: first, column: column) { return failure }
            handler(
                kind == .measurementLoopEnd ? .measurementLoopEnd : kind == .scanEnd ? .scanEnd : .loopEnd,
                location
            )
            return nil
        case .version:
            guard Self.isVersionReply(bytes) else { return LineFailure(column: column + 1, reason: .notAVersion) }
            let last = bytes.last == 0x2A
            state.pointee.inVersion = !last
            state.pointee.versionLines = 0
            handler(.version(whole, isLast: last), location)
            return nil
        default:
            return LineFailure(column: column, reason: .unknownLine(first: first))
        }
    }

    /// A `P` line: every value is decoded before the package is handed out, so a bad line yields none.
    func package(
        _ bytes: UnsafeRawBufferPointer,
        column: Int,
        _ location: LineLocation,
        _ handler: (ReplyEvent, LineLocation) -> Void
    ) -> LineFailure? {
        let count: Int
        do {
            count = try PackageDecoder.decode(line: bytes, into: samples)
        } catch {
            if let reply = Self.errorReply(bytes) {
                handler(.deviceError(reply), location)
                return nil
            }
            return LineFailure(column: column + error.column, reason: error.reason)
        }
        handler(.package(UnsafeBufferPointer(start: samples.baseAddress, count: count)), location)
        return nil
    }

    /// Decodes `bytes` into `samples` when it is a `P` line that `PackageDecoder.decodeBodyFast`
    /// takes; `nil` otherwise (then `package` decodes it, or reports why not). Lines from the framer
    /// are followed by a readable byte; when it is the `\n` the fast path may read up to it.
    @inline(__always)
    func fixedWidthPackage(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, bytes.count > 1, base.load(as: UInt8.self) == 0x50,
            base.load(fromByteOffset: bytes.count, as: UInt8.self) == 0x0A
        else { return nil }
        var sink = SampleBufferSink(buffer: samples)
        let decoded = PackageDecoder.decodeBodyFast(base + 1, end: base + bytes.count + 1, tables: tables, sink: &sink)
        return decoded != nil ? sink.count : nil
    }

    func push(_ scope: Scope, column: Int) -> LineFailure? {
        guard state.pointee.depth < Self.maximumDepth else {
            return LineFailure(column: column, reason: .nestingTooDeep)
        }
        let top =
            state.pointee.depth > 0
            ? Scope(rawValue: (state.pointee.stack >> UInt64(2 * (state.pointee.depth - 1))) & 3) : nil
        if scope == .scan && top != .measurementLoop {
            return LineFailure(column: column, reason: .unexpectedByte(0x43))
        }
        state.pointee.stack |= scope.rawValue << UInt64(2 * state.pointee.depth)
        state.pointee.depth += 1
        return nil
    }

    /// Closes the innermost scope of `scope`'s kind. A mismatch is reported; when a matching scope is
    /// open deeper, the scopes above it are closed too so that parsing can go on.
    func pop(_ scope: Scope, byte: UInt8, column: Int) -> LineFailure? {
        var level = state.pointee.depth - 1
        while level >= 0, (state.pointee.stack >> UInt64(2 * level)) & 3 != scope.rawValue { level -= 1 }
        let matched = level >= 0 && level == state.pointee.depth - 1
        if level >= 0 {
            state.pointee.depth = level
            state.pointee.stack &= (UInt64(1) << UInt64(2 * level)) &- 1
        }
        return matched ? nil : LineFailure(column: column, reason: .unbalancedEnd(byte))
    }

    /// Four hex digits at `from`.
    static func hex4(_ bytes: UnsafeRawBufferPointer, from start: Int) -> UInt16? {
        guard bytes.count >= start + 4 else { return nil }
        var value: UInt16 = 0
        for index in start..<start + 4 {
            let digit = ValueEncoding.hexDigit[Int(bytes[index])]
            guard digit != 0xFF else { return nil }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// `[echo]!XXXX` then the end or `:` and context (`Line N, Col M` is picked out when present).
    @usableFromInline package static func errorReply(_ bytes: UnsafeRawBufferPointer) -> DeviceErrorReply? {
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] == 0x21, let code = hex4(bytes, from: index + 1) else { continue }
            let after = index + 5
            guard after == bytes.count || bytes[after] == 0x3A else { continue }
            var reader = ContextReader(bytes: bytes, index: after + 1)
            var line: Int?
            var columnNumber: Int?
            if after < bytes.count {
                reader.skipSpaces()
                if reader.word("Line"), let number = reader.number() {
                    line = number
                    if reader.word(","), reader.word("Col"), let col = reader.number() { columnNumber = col }
                }
            }
            return DeviceErrorReply(
                code: DeviceErrorCode(rawValue: code),
                echo: UnsafeRawBufferPointer(rebasing: bytes[0..<index]),
                scriptLine: line,
                scriptColumn: columnNumber
            )
        }
        return nil
    }

    /// The device prefixes a version reply starts with after its `t` (PalmSens' SDK and C example:
    /// EmStat Pico, Sensit Wearable, EmStat4 HR/LR, MultiEmStat4 HR/LR, the Pico bootloader, Nexus).
    static let versionPrefixes: [[UInt8]] = [
        "espico", "senswb", "es4_hr", "es4_lr", "mes4hr", "mes4lr", "espbl", "nexus1",
    ]
    .map { Array($0.utf8) }

    /// True when `bytes` (a line starting with `t`) is a version reply: `t` and a known device prefix,
    /// not any line that happens to start with `t`.
    static func isVersionReply(_ bytes: UnsafeRawBufferPointer) -> Bool {
        versionPrefixes.contains { prefix in
            bytes.count > prefix.count && zip(prefix, bytes.dropFirst()).allSatisfy { $0 == $1 }
        }
    }
}

/// Reads `Line N, Col M` out of an error's context.
struct ContextReader {
    let bytes: UnsafeRawBufferPointer
    var index: Int

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 { index += 1 }
    }

    mutating func word(_ text: StaticString) -> Bool {
        skipSpaces()
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    mutating func number() -> Int? {
        skipSpaces()
        var value = 0
        let start = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < 9 {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
        }
        return index > start ? value : nil
    }
}
