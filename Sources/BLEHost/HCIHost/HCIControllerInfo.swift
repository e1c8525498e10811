public import BLEWire

/// What `HCIHost.start()` read from the controller, and the choices it made from it.
public struct HCIControllerInfo: Sendable, Hashable {
    /// Where the ACL buffer figures came from.
    public enum BufferSource: String, Sendable, Hashable {
        case leReadBufferSizeV2, leReadBufferSizeV1, sharedReadBufferSize
    }

    public var hciVersion: UInt8
    public var manufacturer: UInt16
    public var supportedCommands: HCISupportedCommands
    public var lmpFeatures: UInt64
    public var leFeatures: UInt64
    /// The controller's public BD_ADDR (all zero when it has none).
    public var publicAddress: BluetoothAddress
    /// The address connections and scans use (public, or the configured static random one).
    public var ownAddress: BluetoothAddress
    /// Largest ACL payload the controller accepts from the host, and how many packets it buffers.
    public var aclDataLength: Int
    public var aclPacketCount: Int
    public var bufferSource: BufferSource
    /// Extended scanning / Extended Create Connection chosen from the supported-commands bitmap.
    public var extendedScanning: Bool
    public var extendedConnect: Bool
}
