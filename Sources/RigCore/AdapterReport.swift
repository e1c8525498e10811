/// Where one watched adapter stands, and what `AdapterKeeper` has seen and done to it.
public struct AdapterReport: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Not seen yet.
        case unknown
        case up
        case down
        /// The kernel lists no adapter with its address (unplugged, driver gone).
        case missing
    }

    /// As configured: `hci0`, or nil for the kernel's first adapter that is up.
    public var configured: String?
    /// The kernel's name for it now (nil until seen).
    public var name: String?
    /// Learned the first time it is seen with an address.
    public var address: String?
    public var state: State = .unknown
    /// Times it was seen going down.
    public var downs = 0
    /// Times it disappeared from the kernel's list.
    public var disappearances = 0
    /// Times it came back under another name.
    public var renames = 0
    /// Successful `HCIDEVUP`s by the rig, and failed ones.
    public var bringUps = 0
    public var bringUpFailures = 0
    /// Resets (down and up) by the rig after connects kept failing, and failed ones.
    public var resets = 0
    public var resetFailures = 0
    /// Connect attempts that failed on it since a link last opened.
    public var failedConnects = 0
    /// Links open on it now.
    public var openLinks = 0

    /// `hci0 (AA:BB:…) up: 1 down, 1 brought up, 0 resets`.
    public var summary: String {
        let label = (name ?? configured ?? "first adapter") + (address.map { " (\($0))" } ?? "")
        var parts = ["\(downs) down", "\(bringUps) brought up", "\(resets) reset"]
        if disappearances > 0 { parts.append("\(disappearances) gone") }
        if renames > 0 { parts.append("\(renames) renamed") }
        if bringUpFailures + resetFailures > 0 { parts.append("\(bringUpFailures + resetFailures) failed attempts") }
        return "\(label) \(state.rawValue): " + parts.joined(separator: ", ")
    }
}
