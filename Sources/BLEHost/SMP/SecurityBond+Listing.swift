public import BLEWire

extension SecurityBond {
    /// The bond as `hcipico bonds` lists it, without its keys: `CONTROLLER  DEVICE  LEVEL  identity
    /// ADDRESS`, or as one JSON object.
    public func listing(controller: BluetoothAddress, json: Bool) -> String {
        let identity = identityAddress?.description
        guard json else { return "\(controller)  \(peer)  \(level)" + (identity.map { "  identity \($0)" } ?? "") }
        return "{\"controller\":\"\(controller)\",\"device\":\"\(peer)\","
            + "\"secure_connections\":\(secureConnections),\"authenticated\":\(authenticated),"
            + "\"key_size\":\(keySize),\"identity\":\(identity.map { "\"\($0)\"" } ?? "null")}"
    }
}
