/// A byte stream that is not valid H4, located at the stream offset of the packet indicator of the
/// packet that is wrong (counted from the first byte the framer was given).
public struct H4FramingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// The byte where a packet indicator belongs is none of 0x01…0x05.
        case unknownIndicator(UInt8)
        /// The header announces a packet longer than the framer accepts.
        case packetTooLong(HCIPacketIndicator, length: Int, limit: Int)
    }

    public let streamOffset: Int
    public let reason: Reason

    public init(streamOffset: Int, reason: Reason) {
        self.streamOffset = streamOffset
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .unknownIndicator(let byte):
            let hex = (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            return "H4 stream byte \(streamOffset): 0x\(hex) is not a packet indicator"
        case .packetTooLong(let type, let length, let limit):
            return "H4 stream byte \(streamOffset): \(type) packet of \(length) bytes exceeds the limit of \(limit)"
        }
    }
}
