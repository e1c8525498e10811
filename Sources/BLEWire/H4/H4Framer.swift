/// Splits an H4 byte stream (a UART, a TCP link to an emulated controller) into HCI packets, using the
/// length field of each packet's header.
///
/// Core 5.4 Vol 4 Part A §2: every packet is preceded by its `HCIPacketIndicator`; the headers are
///
/// | packet  | header | length field                    |
/// |---------|--------|---------------------------------|
/// | command | 3      | octet 2 (opcode, then length)   |
/// | ACL     | 4      | octets 2–3, little endian       |
/// | SCO     | 3      | octet 2                         |
/// | event   | 2      | octet 1 (event code, length)    |
/// | ISO     | 4      | octets 2–3, low 14 bits         |
///
/// A packet that arrives whole inside one chunk is delivered straight from that chunk; only a packet
/// split across chunks is gathered, in a buffer reserved once at `maximumPacketLength`. Nothing is
/// allocated per packet. After a framing error the stream cannot be resynchronised: close it.
public struct H4Framer {
    /// The largest packet accepted, header included, indicator excluded.
    public let maximumPacketLength: Int
    private var partial: [UInt8]
    private var partialType: HCIPacketIndicator?
    private var partialStart = 0
    private var consumed = 0

    /// The longest packet HCI can express: an ACL header and 65535 bytes of data.
    public static let largestPacketLength = 4 + 0xFFFF

    public init(maximumPacketLength: Int = H4Framer.largestPacketLength) {
        precondition(maximumPacketLength >= 4, "a limit below a header length frames nothing")
        self.maximumPacketLength = maximumPacketLength
        partial = []
        partial.reserveCapacity(maximumPacketLength)
    }

    /// Bytes of a packet received so far but not yet complete.
    public var pendingByteCount: Int { partialType == nil ? 0 : partial.count + 1 }

    /// The header length of a packet type.
    @inlinable
    public static func headerLength(_ type: HCIPacketIndicator) -> Int {
        switch type {
        case .command, .sco: 3
        case .acl, .iso: 4
        case .event: 2
        }
    }

    /// The payload length a complete header announces.
    @inlinable
    public static func payloadLength(_ type: HCIPacketIndicator, header: UnsafeRawBufferPointer) -> Int {
        switch type {
        case .command, .sco: Int(header[2])
        case .event: Int(header[1])
        case .acl: Int(header[2]) | Int(header[3]) << 8
        case .iso: (Int(header[2]) | Int(header[3]) << 8) & 0x3FFF
        }
    }

    /// Feeds the next bytes of the stream; `deliver` is called for every packet completed, in order,
    /// with bytes valid only during the call.
    public mutating func push(
        _ bytes: UnsafeRawBufferPointer,
        deliver: (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void
    ) throws(H4FramingError) {
        var index = 0
        defer { consumed += index }
        while index < bytes.count {
            guard let type = partialType else {
                guard let type = HCIPacketIndicator(rawValue: bytes[index]) else {
                    throw H4FramingError(streamOffset: consumed + index, reason: .unknownIndicator(bytes[index]))
                }
                partialType = type
                partialStart = consumed + index
                partial.removeAll(keepingCapacity: true)
                index += 1
                // Fast path: the whole packet is in this chunk.
                let header = Self.headerLength(type)
                if bytes.count - index >= header {
                    let length =
                        header
                        + Self.payloadLength(
                            type,
                            header: UnsafeRawBufferPointer(rebasing: bytes[index..<index + header])
                        )
                    try check(type, length)
                    if bytes.count - index >= length {
                        partialType = nil
                        deliver(type, UnsafeRawBufferPointer(rebasing: bytes[index..<index + length]))
                        index += length
                    }
                }
                continue
            }
            // Slow path: gather the packet across chunks.
            let header = Self.headerLength(type)
            let wanted: Int
            if partial.count < header {
                wanted = header - partial.count
            } else {
                let length = partial.withUnsafeBytes { header + Self.payloadLength(type, header: $0) }
                wanted = length - partial.count
            }
            let take = min(wanted, bytes.count - index)
            partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<index + take]))
            index += take
            if partial.count == header {
                try check(type, partial.withUnsafeBytes { header + Self.payloadLength(type, header: $0) })
            }
            if partial.count >= header {
                let length = partial.withUnsafeBytes { header + Self.payloadLength(type, header: $0) }
                if partial.count == length {
                    partialType = nil
                    partial.withUnsafeBytes { deliver(type, $0) }
                }
            }
        }
    }

    private func check(_ type: HCIPacketIndicator, _ length: Int) throws(H4FramingError) {
        guard length <= maximumPacketLength else {
            throw H4FramingError(
                streamOffset: partialStart,
                reason: .packetTooLong(type, length: length, limit: maximumPacketLength)
            )
        }
    }
}
