extension GATTProfile {
    /// The characteristic whose value is at `handle` when it does not declare write without response:
    /// a peer drops a Write Command to it without a word. Nil for one that declares it, and for a
    /// handle that is not a characteristic's value (a descriptor, say), which declares nothing.
    public func characteristicRefusingWriteCommands(at handle: UInt16) -> GATTCharacteristic? {
        guard let characteristic = characteristic(at: handle), characteristic.valueHandle == handle,
            !characteristic.properties.contains(.writeWithoutResponse)
        else { return nil }
        return characteristic
    }

    /// Whether a value for `handle` goes as a Write Command: when the characteristic there takes Write
    /// Commands and not Write Requests. Anything else is written with a Write Request.
    public func takesOnlyWriteCommands(at handle: UInt16) -> Bool {
        let properties = characteristic(at: handle)?.properties ?? []
        return !properties.contains(.write) && properties.contains(.writeWithoutResponse)
    }
}
