import BLEWire

extension GATTServer {
    /// Fails with Invalid Handle unless 0 < start ≤ end (Core 5.4 Vol 3 Part F §3.4.3.1 and others).
    func checkRange(_ start: UInt16, _ end: UInt16) throws(ServerFailure) {
        if start == 0 || start > end { throw ServerFailure(.invalidHandle, handle: start) }
    }

    /// Find Information (§3.4.3.1): handle–UUID pairs of one UUID width, as many as fit.
    func findInformation(_ pdu: UnsafeRawBufferPointer, mtu: Int, into response: inout ByteWriter) throws(ServerFailure)
    {
        let request = try decodeRequest(ATTFindInformationRequest.self, pdu)
        try checkRange(request.startingHandle, request.endingHandle)
        let found = database.attributes(from: request.startingHandle, to: request.endingHandle)
        guard let first = found.first else { throw ServerFailure(.attributeNotFound, handle: request.startingHandle) }
        let width = first.attribute.type.attWidth
        var pairs: [ATTInformationData.Pair] = []
        for (handle, attribute) in found where attribute.type.attWidth == width {
            guard 2 + (pairs.count + 1) * (2 + width) <= mtu else { break }
            pairs.append(.init(handle: handle, uuid: attribute.type))
        }
        ATTFindInformationResponse(information: ATTInformationData(pairs: pairs)).encode(into: &response)
    }

    /// Find By Type Value (§3.4.3.3): handles of attributes with a 16-bit type and an exact value; the
    /// group end is the service's end for a service declaration, the handle itself otherwise.
    func findByTypeValue(_ pdu: UnsafeRawBufferPointer, mtu: Int, into response: inout ByteWriter) throws(ServerFailure)
    {
        let request = try decodeRequest(ATTFindByTypeValueRequest.self, pdu)
        try checkRange(request.startingHandle, request.endingHandle)
        let type = BluetoothUUID(request.attributeType)
        var handles: [ATTHandlesInformation] = []
        for (handle, attribute) in database.attributes(from: request.startingHandle, to: request.endingHandle)
        where attribute.type == type && attribute.permissions.contains(.read) {
            guard value(of: handle, attribute) == request.attributeValue else { continue }
            guard 1 + (handles.count + 1) * 4 <= mtu else { break }
            var end = handle
            if case .service(let endHandle) = attribute.role { end = endHandle }
            handles.append(ATTHandlesInformation(foundAttributeHandle: handle, groupEndHandle: end))
        }
        guard !handles.isEmpty else { throw ServerFailure(.attributeNotFound, handle: request.startingHandle) }
        ATTFindByTypeValueResponse(handles: handles).encode(into: &response)
    }

    /// Read By Type (§3.4.4.1): handle–value pairs of one value length, values cut to
    /// min(ATT_MTU − 4, 253). An unreadable first match is reported; a later one ends the list.
    func readByType(_ pdu: UnsafeRawBufferPointer, mtu: Int, into response: inout ByteWriter) throws(ServerFailure) {
        let request = try decodeRequest(ATTReadByTypeRequest.self, pdu)
        try checkRange(request.startingHandle, request.endingHandle)
        var entries: [ATTAttributeDataList.Entry] = []
        let limit = min(mtu - 4, 253)
        for (handle, attribute) in database.attributes(from: request.startingHandle, to: request.endingHandle)
        where attribute.type == request.attributeType {
            guard attribute.permissions.contains(.read) else {
                if entries.isEmpty { throw ServerFailure(.readNotPermitted, handle: handle) }
                break
            }
            let value = Array(value(of: handle, attribute).prefix(limit))
            if let first = entries.first, first.value.count != value.count { break }
            guard 2 + (entries.count + 1) * (2 + value.count) <= mtu else { break }
            entries.append(.init(handle: handle, value: value))
        }
        guard !entries.isEmpty else { throw ServerFailure(.attributeNotFound, handle: request.startingHandle) }
        ATTReadByTypeResponse(attributeData: ATTAttributeDataList(entries: entries)).encode(into: &response)
    }

    /// Read By Group Type (§3.4.4.9): only service declarations are grouping types here.
    func readByGroupType(_ pdu: UnsafeRawBufferPointer, mtu: Int, into response: inout ByteWriter) throws(ServerFailure)
    {
        let request = try decodeRequest(ATTReadByGroupTypeRequest.self, pdu)
        try checkRange(request.startingHandle, request.endingHandle)
        let type = request.attributeGroupType
        guard type == BluetoothUUID.primaryService || type == BluetoothUUID.secondaryService else {
            throw ServerFailure(.unsupportedGroupType, handle: request.startingHandle)
        }
        var entries: [ATTGroupAttributeDataList.Entry] = []
        let limit = min(mtu - 6, 251)
        for (handle, attribute) in database.attributes(from: request.startingHandle, to: request.endingHandle)
        where attribute.type == type {
            guard case .service(let end) = attribute.role else { continue }
            let value = Array(attribute.value.prefix(limit))
            if let first = entries.first, first.value.count != value.count { break }
            guard 2 + (entries.count + 1) * (4 + value.count) <= mtu else { break }
            entries.append(.init(handle: handle, endGroupHandle: end, value: value))
        }
        guard !entries.isEmpty else { throw ServerFailure(.attributeNotFound, handle: request.startingHandle) }
        ATTReadByGroupTypeResponse(attributeData: ATTGroupAttributeDataList(entries: entries)).encode(into: &response)
    }

    /// The value a client reads at `handle`: the connection's CCCD bits, a read handler's value, or the
    /// stored value.
    func value(of handle: UInt16, _ attribute: GATTDatabase.Attribute) -> [UInt8] {
        switch attribute.role {
        case .cccd(let valueHandle):
            let bits = state.withLock { $0.cccd[valueHandle] }
            return [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8)]
        case .value(let index):
            if let onRead = database.characteristic(index).onRead { return onRead() }
            return attribute.value
        default:
            return attribute.value
        }
    }
}
