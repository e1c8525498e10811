/// An HCI event as the raw socket delivers it: its code and parameter bytes, undecoded.
public struct HCIEventPacket: Sendable, Hashable {
    public let code: UInt8
    public let parameters: [UInt8]

    public init(code: UInt8, parameters: [UInt8]) {
        self.code = code
        self.parameters = parameters
    }

    /// Event codes this layer routes (Core 5.4 Vol 4 Part E §7.7).
    public enum Code {
        public static let disconnectionComplete: UInt8 = 0x05
        public static let encryptionChange: UInt8 = 0x08
        public static let commandComplete: UInt8 = 0x0E
        public static let commandStatus: UInt8 = 0x0F
        public static let leMeta: UInt8 = 0x3E
    }

    /// LE Meta subevent codes (Core 5.4 Vol 4 Part E §7.7.65).
    public enum LESubevent {
        public static let connectionComplete: UInt8 = 0x01
        public static let advertisingReport: UInt8 = 0x02
        public static let connectionUpdateComplete: UInt8 = 0x03
        public static let dataLengthChange: UInt8 = 0x07
        public static let enhancedConnectionComplete: UInt8 = 0x0A
        public static let phyUpdateComplete: UInt8 = 0x0C
        public static let extendedAdvertisingReport: UInt8 = 0x0D
    }

    /// The subevent code of an LE Meta event, nil for other events.
    public var leSubevent: UInt8? {
        code == Code.leMeta && !parameters.isEmpty ? parameters[0] : nil
    }
}
