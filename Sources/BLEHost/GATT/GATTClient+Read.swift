public import BLEWire

extension GATTClient {
    /// Reads a value with one Read Request (Core 5.4 Vol 3 Part G §4.8.1): at most ATT_MTU − 1 bytes.
    public func read(_ handle: UInt16) async throws(GATTError) -> [UInt8] {
        try await exchange(ATTReadRequest(handle: handle), as: ATTReadResponse.self).value
    }

    /// Reads a whole value of any length: a Read, then Read Blob from where it ended until a part
    /// comes back shorter than ATT_MTU − 1 (Core 5.4 Vol 3 Part G §4.8.3).
    public func readLong(_ handle: UInt16) async throws(GATTError) -> [UInt8] {
        var value = try await read(handle)
        var lastPart = value.count
        // 512 is the longest attribute value (Core 5.4 Vol 3 Part F §3.2.9); stop past it whatever the peer says.
        while lastPart == mtu - 1 && value.count <= 512 {
            let part: [UInt8]
            do {
                part = try await exchange(
                    ATTReadBlobRequest(handle: handle, valueOffset: UInt16(value.count)),
                    as: ATTReadBlobResponse.self
                ).partValue
            } catch .att(let error) where error.code == .attributeNotLong || error.code == .invalidOffset {
                break
            }
            value.append(contentsOf: part)
            lastPart = part.count
        }
        return value
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
