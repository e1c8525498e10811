import BLEHost
public import BLEWire

/// How `FakeHCIController` answers link tuning: each command's status and its completion event.
public struct FakeTuning: Sendable {
    public init() {}

    public var localFeatures: UInt64 = 0
    public var remoteFeatures: UInt64 = 0x1FF
    /// Status of LE Connection Update Complete (Command Status is success).
    public var updateStatus: HCIStatus = .success
    /// Command Complete status of LE Set Data Length, and whether Data Length Change follows.
    public var dataLengthStatus: HCIStatus = .success
    public var sendsDataLengthChange = true
    /// Command Status of LE Set PHY, and the status of PHY Update Complete.
    public var phyCommandStatus: HCIStatus = .success
    public var phyEventStatus: HCIStatus = .success
}

extension FakeHCIController {
    /// LE Read Remote Features, LE Connection Update, LE Set Data Length, LE Set PHY. A Connection
    /// Update Complete for another handle goes first (the kernel's own links do that), which the host
    /// must not take for ours.
    func answerTuning(_ opcode: UInt16, _ parameters: [UInt8]) {
        let tuning = options.tuning
        let handle = UInt16(parameters[0]) | UInt16(parameters[1]) << 8
        func word(_ offset: Int) -> UInt16 { UInt16(parameters[offset]) | UInt16(parameters[offset + 1]) << 8 }
        switch opcode {
        case HCILEReadRemoteFeatures.opcode:
            status(opcode)
            event(
                HCILEReadRemoteFeaturesCompleteEvent(
                    status: .success,
                    connectionHandle: handle,
                    leFeatures: tuning.remoteFeatures
                )
            )
        case HCILEConnectionUpdate.opcode:
            status(opcode)
            event(
                HCILEConnectionUpdateCompleteEvent(
                    status: .success,
                    connectionHandle: handle + 1,
                    connectionInterval: 99,
                    peripheralLatency: 9,
                    supervisionTimeout: 999
                )
            )
            event(
                HCILEConnectionUpdateCompleteEvent(
                    status: tuning.updateStatus,
                    connectionHandle: handle,
                    connectionInterval: word(4),
                    peripheralLatency: word(6),
                    supervisionTimeout: word(8)
                )
            )
        case HCILESetDataLength.opcode:
            complete(opcode, [tuning.dataLengthStatus.rawValue] + parameters[0..<2])
            guard tuning.dataLengthStatus == .success, tuning.sendsDataLengthChange else { return }
            event(
                HCILEDataLengthChangeEvent(
                    connectionHandle: handle,
                    maxTxOctets: word(2),
                    maxTxTime: word(4),
                    maxRxOctets: 251,
                    maxRxTime: 2120
                )
            )
        case HCILESetPHY.opcode:
            status(opcode, tuning.phyCommandStatus)
            guard tuning.phyCommandStatus == .success else { return }
            event(
                HCILEPHYUpdateCompleteEvent(
                    status: tuning.phyEventStatus,
                    connectionHandle: handle,
                    txPHY: tuning.phyEventStatus == .success ? parameters[3] : 1,
                    rxPHY: tuning.phyEventStatus == .success ? parameters[4] : 1
                )
            )
        default:
            break
        }
    }
}
