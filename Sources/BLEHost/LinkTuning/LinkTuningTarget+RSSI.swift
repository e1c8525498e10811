import BLEWire

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
