/// What a rig can see of, and do to, the adapters its devices use. The CLI hands in the kernel's
/// (`HCIGETDEVINFO`, `HCIDEVUP`, `HCIDEVDOWN`); tests hand in their own.
public protocol AdapterControl: Sendable {
    /// Every adapter there is now, up or down.
    func adapters() throws -> [AdapterStatus]
    /// Powers the named adapter on.
    func bringUp(_ name: String) throws
    /// Powers the named adapter off and on again (its links end; the controller is initialised anew).
    func reset(_ name: String) throws
}

/// One adapter as `AdapterControl` sees it.
public struct AdapterStatus: Sendable, Equatable {
    /// The kernel's name for it now (`hci0`); it may change when the adapter comes back.
    public var name: String
    /// Its public address (`AA:BB:…`); all zero while it has never been up.
    public var address: String
    public var isUp: Bool

    public init(name: String, address: String, isUp: Bool) {
        self.name = name
        self.address = address
        self.isUp = isUp
    }

    /// False for the all-zero address of an adapter that has never been up.
    var hasAddress: Bool { address.contains { $0 != "0" && $0 != ":" } }
}
