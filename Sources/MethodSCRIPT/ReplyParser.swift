/// Parses the device's reply stream into `ReplyEvent`s, synchronously, on the caller's thread.
///
/// Feed it bytes as they arrive (BLE notifications, file chunks: any size); it calls the handler for
/// every event in order. Loop nesting (`M…*`, `C…-`, `L…+`) is validated, a malformed line gives a
/// located `.malformed` event with the raw line and parsing resumes at the next line. After `init` it
/// allocates nothing: lines are framed in a fixed buffer and samples decoded into another.
public final class ReplyParser {
    /// The three kinds of scope, as kept on the nesting stack (two bits a level).
    enum Scope: UInt64 {
        case measurementLoop = 1
        case scan = 2
        case loop = 3
    }

    /// The deepest nesting tracked.
    public static let maximumDepth = 32

    /// The most lines after the first that a version reply may take before its `*`; past it the reply
    /// is reported as unterminated and parsing goes on normally.
    public static let maximumVersionContinuation = 4

    let framer: FramerCore
    let samples: UnsafeMutableBufferPointer<Sample>
    let tables = DecodeTables.allocateCopy()
    /// The nesting stack (two bits a level), its depth and whether a version reply is open; behind a
    /// pointer so that the hot path has no dynamic exclusivity checks.
    let state: UnsafeMutablePointer<State>

    struct State {
        var stack: UInt64 = 0
        var depth = 0
        var inVersion = false
        var versionLines = 0
    }

    /// A parser for reply lines of up to `maximumLineLength` bytes (newline excluded); a longer line is
    /// reported as `.malformed` with `.lineTooLong`. Its line and sample buffers are allocated here, once.
    public init(maximumLineLength: Int = MethodSCRIPTLimits.defaultMaximumReplyLineLength) {
        framer = FramerCore(maximumLineLength: maximumLineLength)
        let capacity = PackageDecoder.maximumVariables(lineLength: maximumLineLength)
        samples = UnsafeMutableBufferPointer<Sample>.allocate(capacity: capacity)
        samples.initialize(repeating: Sample(variable: VariableType(rawValue: 0), value: 0))
        state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit {
        framer.deallocate()
        samples.deallocate()
        tables.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Lines seen so far.
    public var lineCount: Int { framer.state.pointee.lineCount }

    /// Open scopes (loops and scans) right now.
    public var openScopeCount: Int { state.pointee.depth }

    /// Feeds one chunk of the stream.
    public func feed(_ chunk: UnsafeRawBufferPointer, _ handler: (ReplyEvent, LineLocation) -> Void) {
        guard let base = chunk.baseAddress else { return }
        if framer.takesSmall(chunk.count) {
            feedSmall(base, chunk.count, handler)
        } else {
            feedGeneral(chunk, handler)
        }
    }

    /// Feeds the bytes of an array.
    public func feed(_ bytes: [UInt8], _ handler: (ReplyEvent, LineLocation) -> Void) {
        bytes.withUnsafeBytes { feed($0, handler) }
    }

    /// Parses a last line without a newline, if one is pending (end of a file).
    public func finish(_ handler: (ReplyEvent, LineLocation) -> Void) {
        framer.finish { line in parse(line, handler) }
    }

    /// Forgets the nesting, the version state and any unfinished line (e.g. after an abort).
    public func reset() {
        framer.reset()
        state.pointee.stack = 0
        state.pointee.depth = 0
        state.pointee.inVersion = false
    }

    func parse(_ line: FramedLine, _ handler: (ReplyEvent, LineLocation) -> Void) {
        let location = LineLocation(line: line.number, offset: line.offset)
        // The common line first: a `P` line of the fixed-width shapes, outside a version reply.
        if !line.isTooLong, !state.pointee.inVersion, let count = fixedWidthPackage(line.bytes) {
            handler(.package(UnsafeBufferPointer(start: samples.baseAddress, count: count)), location)
            return
        }
        if line.isTooLong {
            let reason = ParseError.Reason.lineTooLong(limit: framer.maximumLineLength)
            let error = ParseError(line: line.number, offset: line.offset, column: 0, reason: reason)
            handler(.malformed(error, raw: line.bytes), location)
            return
        }
        if let failure = parseLine(line.bytes, whole: line.bytes, location, handler) {
            let column = failure.column
            let error = ParseError(
                line: line.number,
                offset: line.offset + column,
                column: column,
                reason: failure.reason
            )
            handler(.malformed(error, raw: line.bytes), location)
        }
    }

    /// A failure inside a line: the column and the reason.
    struct LineFailure {
        let column: Int
        let reason: ParseError.Reason
    }

    /// Parses `bytes` (all of the line, or its rest after a joined `e`); returns a failure to report.
    func parseLine(
        _ bytes: UnsafeRawBufferPointer,
        whole: UnsafeRawBufferPointer,
        _ location: LineLocation,
        _ handler: (ReplyEvent, LineLocation) -> Void
    ) -> LineFailure? {
        let column = whole.count - bytes.count
        if state.pointee.inVersion {
            let last = bytes.last == 0x2A
            state.pointee.versionLines += 1
            if !last && state.pointee.versionLines >= Self.maximumVersionContinuation {
                state.pointee.inVersion = false
                return LineFailure(column: 0, reason: .versionNotTerminated)
            }
            state.pointee.inVersion = !last
            handler(.version(bytes, isLast: last), location)
            return nil
        }
        guard let first = bytes.first else {
            let open = state.pointee.depth
            state.pointee.stack = 0
            state.pointee.depth = 0
            handler(.scriptEnd, location)
            return open > 0 ? LineFailure(column: 0, reason: .unclosedScope) : nil
        }
        switch ReplyLineKind.of(firstByte: first) {
        case .dataPackage:
            return package(bytes, column: column, location, handler)
        case .text:
            handler(.text(UnsafeRawBufferPointer(rebasing: bytes.dropFirst())), location)
            return nil
        case .serialNumber:
            handler(.serialNumber(UnsafeRawBufferPointer(rebasing: bytes.dropFirst())), location)
            return nil
        case .abortReply:
            if bytes.count == 1 {
                handler(.abortReply(nil), location)
                return nil
            }
            if bytes[1] == 0x21, let reply = Self.errorReply(bytes), reply.echo.count == 1 {
                handler(.abortReply(reply.code), location)
                return nil
            }
            return LineFailure(column: column + 1, reason: .unexpectedByte(bytes[1]))
        default:
            break
        }
        if let reply = Self.errorReply(bytes) {
            handler(.deviceError(reply), location)
            return nil
        }
        return structure(first, bytes, whole: whole, column: column, location, handler)
    }
}
