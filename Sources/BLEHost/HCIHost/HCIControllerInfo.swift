public import BLEWire

/// What `HCIHost.start()` read from the controller, and the choices it made from it.
public struct HCIControllerInfo: Sendable, Hashable {
    /// Where the ACL buffer figures came from.
    public enum BufferSource: String, Sendable, Hashable {
        /// LE Read Buffer Size v2; LE Read Buffer Size (v1); or the BR/EDR Read Buffer Size, used when the LE
        /// figures are zero because LE shares the BR/EDR buffers.
        case leReadBufferSizeV2, leReadBufferSizeV1, sharedReadBufferSize
    }

    /// The HCI version from Read Local Version Information (for example 0x0D for Core 5.4).
    public var hciVersion: UInt8
    /// The controller manufacturer's company identifier (Bluetooth SIG assigned numbers).
    public var manufacturer: UInt16
    /// The Read Local Supported Commands bitmap; the host picks its commands by it.
    public var supportedCommands: HCISupportedCommands
    /// The LMP features bitmap (page 0) from Read Local Supported Features.
    public var lmpFeatures: UInt64
    /// The LE features bitmap from LE Read Local Supported Features; 0 when the controller lacks that command.
    public var leFeatures: UInt64
    /// The controller's public BD_ADDR (all zero when it has none).
    public var publicAddress: BluetoothAddress
    /// The address connections and scans use (public, or the configured static random one).
    public var ownAddress: BluetoothAddress
    /// Largest ACL payload the controller accepts from the host, and how many packets it buffers.
    public var aclDataLength: Int
    /// How many ACL packets the controller buffers: the host's ACL credits.
    public var aclPacketCount: Int
    /// Which command gave `aclDataLength` and `aclPacketCount`.
    public var bufferSource: BufferSource
    /// Extended scanning / Extended Create Connection chosen from the supported-commands bitmap.
    public var extendedScanning: Bool
    /// Whether connects use LE Extended Create Connection.
    public var extendedConnect: Bool
}
