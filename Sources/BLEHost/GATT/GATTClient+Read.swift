public import BLEWire

extension GATTClient {
    /// Reads a value with one Read Request (Core 5.4 Vol 3 Part G §4.8.1): at most ATT_MTU − 1 bytes.
    public func read(_ handle: UInt16) async throws(GATTError) -> [UInt8] {
        try await exchange(ATTReadRequest(handle: handle), as: ATTReadResponse.self).value
    }

    /// The longest attribute value (Core 5.4 Vol 3 Part F §3.2.9).
    public static let maximumValueLength = 512

    /// Reads a whole value of any length (see `readLongValue`): at most 512 bytes, whatever the MTU.
    public func readLong(_ handle: UInt16) async throws(GATTError) -> [UInt8] {
        try await readLongValue(handle).value
    }

    /// Reads a whole value: a Read, then Read Blob from where it ended while parts come back full
    /// (ATT_MTU − 1 bytes), up to the 512-byte maximum of an attribute value (Core 5.4 Vol 3 Part G
    /// §4.8.3). The value is the same at every MTU and never longer than 512 bytes; `excess` says the
    /// server offered more than that (the value is then its first 512 bytes, as the specification
    /// allows no longer one — a server that ignores the offset looks so too).
    public func readLongValue(_ handle: UInt16) async throws(GATTError) -> (value: [UInt8], excess: Bool) {
        let limit = Self.maximumValueLength
        var value = try await read(handle)
        var lastPartFull = value.count == mtu - 1
        while lastPartFull && value.count < limit {
            guard let part = try await readBlob(handle, at: value.count) else { break }
            value.append(contentsOf: part)
            lastPartFull = part.count == mtu - 1
        }
        var excess = value.count > limit
        if !excess && value.count == limit && lastPartFull {
            // A full part ended exactly at 512: a server that has no more answers Invalid Offset.
            excess = try await readBlob(handle, at: limit).map { !$0.isEmpty } ?? false
        }
        return (Array(value.prefix(limit)), excess)
    }

    /// One Read Blob; nil when the server says the value has nothing at `offset` (Attribute Not Long,
    /// Invalid Offset) or answers with nothing.
    private func readBlob(_ handle: UInt16, at offset: Int) async throws(GATTError) -> [UInt8]? {
        do {
            let part = try await exchange(
                ATTReadBlobRequest(handle: handle, valueOffset: UInt16(offset)),
                as: ATTReadBlobResponse.self
            ).partValue
            return part.isEmpty ? nil : part
        } catch .att(let error) where error.code == .attributeNotLong || error.code == .invalidOffset {
            return nil
        }
    }

    /// Reads the value of a characteristic, long or short.
    public func read(_ characteristic: GATTCharacteristic) async throws(GATTError) -> [UInt8] {
        try await readLong(characteristic.valueHandle)
    }

    /// Reads every attribute of `type` in `range` (Core 5.4 Vol 3 Part G §4.8.2, Read Using
    /// Characteristic UUID, continued over the range). Values are cut at ATT_MTU − 4 by the server.
    public func readByType(
        _ type: BluetoothUUID,
        in range: ClosedRange<UInt16> = 1...0xFFFF
    ) async throws(GATTError) -> [(handle: UInt16, value: [UInt8])] {
        let entries = try await readByTypeEntries(type, from: range.lowerBound, to: range.upperBound)
        if entries.isEmpty {
            throw .att(
                ATTError(code: .attributeNotFound, handle: range.lowerBound, request: ATTReadByTypeRequest.opcode)
            )
        }
        return entries.map { ($0.handle, $0.value) }
    }

    /// Reads several values in one Read Multiple Request (Core 5.4 Vol 3 Part G §4.8.4): the values are
    /// concatenated, so all but the last must have known lengths.
    public func readMultiple(_ handles: [UInt16]) async throws(GATTError) -> [UInt8] {
        guard handles.count >= 2 else { throw .invalidArgument("Read Multiple needs two or more handles") }
        return try await exchange(ATTReadMultipleRequest(handles: handles), as: ATTReadMultipleResponse.self).values
    }

    /// Reads several variable-length values in one Read Multiple Variable Request (§4.8.5).
    public func readMultipleVariable(_ handles: [UInt16]) async throws(GATTError) -> [[UInt8]] {
        guard handles.count >= 2 else { throw .invalidArgument("Read Multiple Variable needs two or more handles") }
        let response = try await exchange(
            ATTReadMultipleVariableRequest(handles: handles),
            as: ATTReadMultipleVariableResponse.self
        )
        return response.values.tuples.map(\.value)
    }
}
