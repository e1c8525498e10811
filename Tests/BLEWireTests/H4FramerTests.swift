import BLEWire
import Testing

@Suite struct H4FramerTests {
    struct Packet: Equatable, CustomStringConvertible {
        var type: HCIPacketIndicator
        var bytes: [UInt8]
        var description: String { "\(type) \(bytes)" }
    }

    /// One packet of every type, including empty payloads and an ISO length with its RFU bits set.
    static let packets: [Packet] = [
        Packet(type: .command, bytes: [0x03, 0x0C, 0x00]),  // Reset, no parameters
        Packet(type: .event, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),  // Command Complete
        Packet(type: .acl, bytes: [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x1B, 0x0E, 0x00]),
        Packet(type: .event, bytes: [0x3E, 0x00]),  // empty parameters
        Packet(type: .sco, bytes: [0x01, 0x00, 0x02, 0xAA, 0xBB]),
        Packet(type: .iso, bytes: [0x01, 0x00, 0x03, 0xC0, 0x10, 0x11, 0x12]),  // length 3 | RFU 0xC000
        Packet(type: .acl, bytes: [0x40, 0x20, 0x00, 0x00]),  // empty ACL
        Packet(type: .command, bytes: [0x01, 0x20, 0x08] + Array(1...8)),
    ]

    static let stream: [UInt8] = packets.flatMap { [$0.type.rawValue] + $0.bytes }

    /// Feeds `chunks` (cut at `cuts`) and returns what was delivered.
    static func frame(
        _ stream: [UInt8],
        cuts: [Int],
        limit: Int = H4Framer.largestPacketLength
    ) throws(H4FramingError)
        -> [Packet]
    {
        var framer = H4Framer(maximumPacketLength: limit)
        var out: [Packet] = []
        let bounds = [0] + cuts + [stream.count]
        for index in 0..<bounds.count - 1 {
            let chunk = Array(stream[bounds[index]..<bounds[index + 1]])
            let result: Result<Void, H4FramingError> = chunk.withUnsafeBytes { bytes in
                do throws(H4FramingError) {
                    try framer.push(bytes) { type, packet in out.append(Packet(type: type, bytes: Array(packet))) }
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            try result.get()
        }
        #expect(framer.pendingByteCount == 0)
        return out
    }

    @Test func wholeStreamInOneChunk() throws {
        #expect(try Self.frame(Self.stream, cuts: []) == Self.packets)
    }

    @Test func byteByByte() throws {
        #expect(try Self.frame(Self.stream, cuts: Array(1..<Self.stream.count)) == Self.packets)
    }

    @Test func everySplitPoint() throws {
        for cut in 1..<Self.stream.count {
            #expect(try Self.frame(Self.stream, cuts: [cut]) == Self.packets, "cut at \(cut)")
        }
    }

    @Test func everyPairOfSplitPoints() throws {
        for first in 1..<Self.stream.count {
            for second in first..<Self.stream.count {
                #expect(try Self.frame(Self.stream, cuts: [first, second]) == Self.packets, "cuts \(first), \(second)")
            }
        }
    }

    @Test func partialPacketIsHeldUntilComplete() throws {
        var framer = H4Framer()
        var delivered = 0
        let result: Result<Void, H4FramingError> = [UInt8]([0x04, 0x0E, 0x04, 0x01]).withUnsafeBytes { bytes in
            Result { () throws(H4FramingError) in try framer.push(bytes) { _, _ in delivered += 1 } }
        }
        try result.get()
        #expect(delivered == 0)
        #expect(framer.pendingByteCount == 4)
    }

    @Test func unknownIndicatorIsLocated() {
        // A good event, then 0x07 where the next indicator belongs (stream offset 7), at every split.
        let stream: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00, 0x07, 0x01]
        for cut in 0..<stream.count {
            #expect(throws: H4FramingError(streamOffset: 7, reason: .unknownIndicator(0x07))) {
                _ = try Self.frame(stream, cuts: cut == 0 ? [] : [cut])
            }
        }
    }

    @Test func oversizedPacketIsRefusedAtItsIndicator() {
        // An event (offset 0) then an ACL packet (offset 3) announcing 0x0100 bytes with a limit of 64.
        let stream: [UInt8] = [0x04, 0x3E, 0x00, 0x02, 0x40, 0x20, 0x00, 0x01, 0xAA]
        let expected = H4FramingError(streamOffset: 3, reason: .packetTooLong(.acl, length: 4 + 256, limit: 64))
        for cut in 0..<stream.count {
            #expect(throws: expected) { _ = try Self.frame(stream, cuts: cut == 0 ? [] : [cut], limit: 64) }
        }
    }

    @Test func largestACLPacketFitsTheDefaultLimit() throws {
        let payload = [UInt8](repeating: 0x5A, count: 0xFFFF)
        let packet = Packet(type: .acl, bytes: [0x01, 0x00, 0xFF, 0xFF] + payload)
        let stream = [UInt8(0x02)] + packet.bytes
        #expect(try Self.frame(stream, cuts: [2, 5, 40_000]) == [packet])
    }

    @Test func errorDescriptionNamesOffsetAndByte() {
        let error = H4FramingError(streamOffset: 12, reason: .unknownIndicator(0xFF))
        #expect(error.description == "H4 stream byte 12: 0xff is not a packet indicator")
    }
}
