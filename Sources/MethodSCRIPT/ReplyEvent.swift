/// One event of the reply stream. Buffers inside events point into the parser's or the caller's
/// memory and are valid only during the callback that receives them: copy what you keep.
public enum ReplyEvent {
    /// `e`: the script was received and starts.
    case executeAccepted
    /// `MXXXX`: a measurement loop starts.
    case measurementLoopStart(UInt16)
    /// `*`: the innermost measurement loop ends.
    case measurementLoopEnd
    /// `CXXXX`: a scan of a measurement loop starts.
    case scanStart(UInt16)
    /// `-`: the scan ends.
    case scanEnd
    /// `L`: a plain loop starts.
    case loopStart
    /// `+`: the plain loop ends.
    case loopEnd
    /// A data package (`P` line): all its values, in order. A line that fails to decode yields no
    /// package, only `.malformed`.
    case package(UnsafeBufferPointer<Sample>)
    /// `T…`: text from `send_string`, without the `T`.
    case text(UnsafeRawBufferPointer)
    /// A line of the version reply (`t…` up to the line ending in `*`), whole.
    case version(UnsafeRawBufferPointer, isLast: Bool)
    /// `[echo]!XXXX[: Line N, Col M]`: the device reports an error.
    case deviceError(DeviceErrorReply)
    /// `Z` or `Z!XXXX`: the reply to an abort (`!0006` when no script was running).
    case abortReply(DeviceErrorCode?)
    /// `i…`: the reply to the `i` command, the serial number, without the `i`.
    case serialNumber(UnsafeRawBufferPointer)
    /// The empty line: the script has ended.
    case scriptEnd
    /// A line that breaks the grammar, kept raw; parsing goes on with the next line.
    case malformed(ParseError, raw: UnsafeRawBufferPointer)
}

/// An error reply of the device.
public struct DeviceErrorReply {
    /// The error code after the `!`.
    public let code: DeviceErrorCode
    /// What the device echoed before the `!` (often empty).
    public let echo: UnsafeRawBufferPointer
    /// The script position from `: Line N, Col M`, when given.
    public let scriptLine: Int?
    /// The column from `Col M`, when the device gave one after `Line N`.
    public let scriptColumn: Int?
}

/// Where an event's line is in the stream.
public struct LineLocation: Hashable, Sendable {
    /// 1-based line number.
    public let line: Int
    /// Byte offset of the line's first byte.
    public let offset: Int

    /// The location of the line numbered `line` (from 1) that starts at stream byte `offset`.
    public init(line: Int, offset: Int) {
        self.line = line
        self.offset = offset
    }
}
