public import BLEHost
import BLEWire

extension GATTDatabase {
    /// Adds the GAP service (Core 5.4 Vol 3 Part C §12) with a read-only Device Name, as every
    /// peripheral serves it, and returns its handles.
    @discardableResult
    public func addGenericAccess(deviceName: String) -> GATTServiceHandles {
        addService(
            GATTServiceDefinition(
                uuid: .genericAccessService,
                characteristics: [
                    GATTCharacteristicDefinition(uuid: .deviceName, properties: [.read], value: Array(deviceName.utf8))
                ]
            )
        )
    }
}
