/// An HCI event as the raw socket delivers it: its code and parameter bytes, undecoded.
public struct HCIEventPacket: Sendable, Hashable {
    /// The event code; see `Code`.
    public let code: UInt8
    /// The parameter bytes that follow the code and the length octet.
    public let parameters: [UInt8]

    /// An event with `code` and `parameters`; the length octet is `parameters.count`.
    public init(code: UInt8, parameters: [UInt8]) {
        self.code = code
        self.parameters = parameters
    }

    /// Event codes this layer routes (Core 5.4 Vol 4 Part E §7.7).
    public enum Code {
        /// Disconnection Complete (§7.7.5).
        public static let disconnectionComplete: UInt8 = 0x05
        /// Encryption Change (§7.7.8).
        public static let encryptionChange: UInt8 = 0x08
        /// Command Complete (§7.7.14).
        public static let commandComplete: UInt8 = 0x0E
        /// Command Status (§7.7.15).
        public static let commandStatus: UInt8 = 0x0F
        /// LE Meta (§7.7.65): the first parameter is the subevent code, see `LESubevent`.
        public static let leMeta: UInt8 = 0x3E
    }

    /// LE Meta subevent codes (Core 5.4 Vol 4 Part E §7.7.65).
    public enum LESubevent {
        /// LE Connection Complete (§7.7.65.1).
        public static let connectionComplete: UInt8 = 0x01
        /// LE Advertising Report (§7.7.65.2): what legacy scanning sees.
        public static let advertisingReport: UInt8 = 0x02
        /// LE Connection Update Complete (§7.7.65.3).
        public static let connectionUpdateComplete: UInt8 = 0x03
        /// LE Data Length Change (§7.7.65.7).
        public static let dataLengthChange: UInt8 = 0x07
        /// LE Enhanced Connection Complete (§7.7.65.10).
        public static let enhancedConnectionComplete: UInt8 = 0x0A
        /// LE PHY Update Complete (§7.7.65.12).
        public static let phyUpdateComplete: UInt8 = 0x0C
        /// LE Extended Advertising Report (§7.7.65.13): what extended scanning sees.
        public static let extendedAdvertisingReport: UInt8 = 0x0D
    }

    /// The subevent code of an LE Meta event, nil for other events.
    public var leSubevent: UInt8? {
        code == Code.leMeta && !parameters.isEmpty ? parameters[0] : nil
    }
}
