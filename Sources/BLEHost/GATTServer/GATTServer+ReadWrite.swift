import BLEWire

extension GATTServer {
    /// A readable attribute's value, or Invalid Handle / Read Not Permitted.
    func readable(_ handle: UInt16) throws(ServerFailure) -> [UInt8] {
        guard let attribute = database.attribute(handle) else { throw ServerFailure(.invalidHandle, handle: handle) }
        guard attribute.permissions.contains(.read) else { throw ServerFailure(.readNotPermitted, handle: handle) }
        return value(of: handle, attribute)
    }

    /// Read (§3.4.4.3): the first ATT_MTU − 1 bytes.
    func read(_ pdu: UnsafeRawBufferPointer, mtu: Int, into response: inout ByteWriter) throws(ServerFailure) {
        let request = try decodeRequest(ATTReadRequest.self, pdu)
        let value = try readable(request.handle)
        response.write(ATTReadResponse.opcode)
        response.write(contentsOf: value.prefix(mtu - 1))
    }

    /// Read Blob (§3.4.4.5): from `valueOffset`; an offset past the end is Invalid Offset.
    func readBlob(_ pdu: UnsafeRawBufferPointer, mtu: Int, into response: inout ByteWriter) throws(ServerFailure) {
        let request = try decodeRequest(ATTReadBlobRequest.self, pdu)
        let value = try readable(request.handle)
        let offset = Int(request.valueOffset)
        guard offset <= value.count else { throw ServerFailure(.invalidOffset, handle: request.handle) }
        response.write(ATTReadBlobResponse.opcode)
        response.write(contentsOf: value[offset..<min(value.count, offset + mtu - 1)])
    }

    /// Read Multiple (§3.4.4.7): the values concatenated, cut to ATT_MTU − 1.
    func readMultiple(_ pdu: UnsafeRawBufferPointer, mtu: Int, into response: inout ByteWriter) throws(ServerFailure) {
        let request = try decodeRequest(ATTReadMultipleRequest.self, pdu)
        guard request.handles.count >= 2 else { throw .invalidPDU }
        var values: [UInt8] = []
        for handle in request.handles { values += try readable(handle) }
        response.write(ATTReadMultipleResponse.opcode)
        response.write(contentsOf: values.prefix(mtu - 1))
    }

    /// Read Multiple Variable (§3.4.4.11): length–value tuples, the whole cut to ATT_MTU − 1.
    func readMultipleVariable(
        _ pdu: UnsafeRawBufferPointer,
        mtu: Int,
        into response: inout ByteWriter
    ) throws(ServerFailure) {
        let request = try decodeRequest(ATTReadMultipleVariableRequest.self, pdu)
        guard request.handles.count >= 2 else { throw .invalidPDU }
        var tuples = ByteWriter(capacity: mtu)
        for handle in request.handles {
            let value = try readable(handle)
            tuples.write(UInt16(value.count))
            tuples.write(contentsOf: value)
        }
        response.write(ATTReadMultipleVariableResponse.opcode)
        response.write(contentsOf: tuples.bytes.prefix(mtu - 1))
    }

    /// Write Request (§3.4.5.1).
    func writeRequest(_ pdu: UnsafeRawBufferPointer, into response: inout ByteWriter) throws(ServerFailure) {
        let request: ATTWriteRequest.View
        do { request = try ATTWriteRequest.View(pdu: pdu) } catch { throw .invalidPDU }
        try checkWritable(request.handle, length: request.value.count)
        try store(request.handle, request.value, withoutResponse: false)
        ATTWriteResponse().encode(into: &response)
    }

    /// Write Command (§3.4.5.3): like a Write Request, but every failure is silent. No allocation
    /// unless the characteristic stores the written value.
    func writeCommand(_ pdu: UnsafeRawBufferPointer) {
        guard let request = try? ATTWriteCommand.View(pdu: pdu) else { return }
        do throws(ServerFailure) {
            try checkWritable(request.handle, length: request.value.count)
            try store(request.handle, request.value, withoutResponse: true)
        } catch {
            return
        }
    }

    /// Prepare Write (§3.4.6.1): permissions are checked now, offsets and lengths at execution.
    func prepareWrite(_ pdu: UnsafeRawBufferPointer, into response: inout ByteWriter) throws(ServerFailure) {
        let request = try decodeRequest(ATTPrepareWriteRequest.self, pdu)
        try checkWritable(request.handle, length: nil)
        let full = state.withLock { state in
            guard state.prepared.count < Self.prepareQueueLimit else { return true }
            state.prepared.append((request.handle, Int(request.valueOffset), request.partValue))
            return false
        }
        if full { throw ServerFailure(.prepareQueueFull, handle: request.handle) }
        ATTPrepareWriteResponse(handle: request.handle, valueOffset: request.valueOffset, partValue: request.partValue)
            .encode(into: &response)
    }

    /// Execute Write (§3.4.6.3): flags 0 cancels, 1 writes every prepared value. Offsets, lengths and
    /// permissions are checked for all of them before any is written; an `onWrite` handler that rejects
    /// a later value leaves the earlier ones written (it has no way to undo them). Parts apply in the
    /// order they were prepared, each replacing the value from its offset on.
    func executeWrite(_ pdu: UnsafeRawBufferPointer, into response: inout ByteWriter) throws(ServerFailure) {
        let request = try decodeRequest(ATTExecuteWriteRequest.self, pdu)
        guard request.flags <= 1 else { throw .invalidPDU }
        let prepared = state.withLock { state in
            defer { state.prepared = [] }
            return state.prepared
        }
        if request.flags == 1 {
            var values: [(handle: UInt16, value: [UInt8])] = []
            for part in prepared {
                let index = values.firstIndex { $0.handle == part.handle }
                var value = index.map { values[$0].value } ?? currentValue(part.handle)
                guard part.offset <= value.count else { throw ServerFailure(.invalidOffset, handle: part.handle) }
                // A part written at an offset ends the value there (variable-length attributes).
                value.replaceSubrange(part.offset..<value.count, with: part.value)
                if let index { values[index].value = value } else { values.append((part.handle, value)) }
            }
            for (handle, value) in values { try checkWritable(handle, length: value.count) }
            for (handle, value) in values {
                let result: Result<Void, ServerFailure> = value.withUnsafeBytes { bytes in
                    do throws(ServerFailure) {
                        try store(handle, bytes, withoutResponse: false)
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
                try result.get()
            }
        }
        ATTExecuteWriteResponse().encode(into: &response)
    }

    /// The value a write at an offset builds on: what a read would return now (empty if none).
    private func currentValue(_ handle: UInt16) -> [UInt8] {
        guard let attribute = database.attribute(handle) else { return [] }
        return value(of: handle, attribute)
    }

    /// Fails unless `handle` exists, may be written, and takes `length` bytes (when given).
    func checkWritable(_ handle: UInt16, length: Int?) throws(ServerFailure) {
        guard let attribute = database.attribute(handle) else { throw ServerFailure(.invalidHandle, handle: handle) }
        guard attribute.permissions.contains(.write) else { throw ServerFailure(.writeNotPermitted, handle: handle) }
        guard let length else { return }
        let maximum: Int
        switch attribute.role {
        case .cccd: maximum = 2
        case .value(let index): maximum = database.characteristic(index).maximumLength
        default: maximum = 512
        }
        guard length <= maximum else { throw ServerFailure(.invalidAttributeValueLength, handle: handle) }
        if case .cccd = attribute.role, length != 2 {
            throw ServerFailure(.invalidAttributeValueLength, handle: handle)
        }
    }

    /// Applies a checked write: CCCD bits for this connection, or the characteristic's handler and store.
    func store(_ handle: UInt16, _ value: UnsafeRawBufferPointer, withoutResponse: Bool) throws(ServerFailure) {
        guard let attribute = database.attribute(handle) else { throw ServerFailure(.invalidHandle, handle: handle) }
        switch attribute.role {
        case .cccd(let valueHandle):
            let bits = UInt16(value[0]) | UInt16(value[1]) << 8
            state.withLock { $0.cccd[valueHandle] = bits }
        case .value(let index):
            let characteristic = database.characteristic(index)
            if let onWrite = characteristic.onWrite,
                let code = onWrite(
                    GATTWrite(handle: handle, value: value, withoutResponse: withoutResponse, server: self)
                )
            {
                throw ServerFailure(code, handle: handle)
            }
            if characteristic.storesWrites { database.setValue(Array(value), of: handle) }
        default:
            database.setValue(Array(value), of: handle)
        }
    }
}
