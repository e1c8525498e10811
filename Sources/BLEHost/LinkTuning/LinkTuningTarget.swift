public import BLEWire

/// Why a tuning command got no answer: none in time, or the link or socket is gone (the reason).
public enum LinkTuningFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No Command Status or Command Complete for the command `opcode` within `waited`.
    case noAnswer(opcode: UInt16, waited: Duration)
    /// The link, socket or host went away, or the command could not be sent; the text says which.
    case gone(String)

    /// A one-line account for logs and reports.
    public var description: String {
        switch self {
        case .noAnswer(let opcode, let waited):
            "no Command Status or Command Complete for HCI command 0x\(hex4(opcode)) within \(waited)"
        case .gone(let why): why
        }
    }
}

/// One LE link whose controller takes raw HCI commands: hcipico's own `HCIConnection`, or the kernel's
/// link reached through a raw HCI socket on its adapter.
public protocol LinkTuningTarget: Sendable {
    /// The HCI connection handle the commands are about.
    var connectionHandle: UInt16 { get }

    /// Sends `command` and returns the controller's answer. When `subevent` is given and the answer
    /// is success, also waits up to `eventTimeout` for that LE Meta subevent on `connectionHandle` and
    /// returns the whole event packet (code, length, parameters); nil when it did not come. The waiter
    /// is in place before the command is sent.
    func exchange<Command: HCICommandPacket>(
        _ command: Command,
        awaiting subevent: UInt8?,
        eventTimeout: Duration
    ) async throws(LinkTuningFailure) -> (answer: HCICommandResult, event: [UInt8]?)
}

extension LinkTuningTarget {
    /// The link's received signal strength now, in dBm (HCI Read RSSI, Core Vol 4 Part E §7.5.4); nil
    /// when the controller refused or did not answer, or reports 127 (not available).
    public func readRSSI() async -> Int? {
        guard
            let result = try? await exchange(
                HCIReadRSSI(connectionHandle: connectionHandle),
                awaiting: nil,
                eventTimeout: .zero
            ),
            case .complete(let parameters) = result.answer, parameters.count >= 4, parameters[0] == 0
        else { return nil }
        let rssi = Int(Int8(bitPattern: parameters[3]))
        return rssi == 127 ? nil : rssi
    }
}
