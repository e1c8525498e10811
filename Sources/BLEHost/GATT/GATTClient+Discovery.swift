public import BLEWire

extension GATTClient {
    /// Discovers every primary service (Core 5.4 Vol 3 Part G §4.4.1: Read By Group Type over the
    /// whole handle range until Attribute Not Found).
    public func discoverPrimaryServices() async throws(GATTError) -> [GATTService] {
        var found: [GATTService] = []
        var start: UInt16 = 1
        while true {
            let response: ATTReadByGroupTypeResponse
            do {
                response = try await exchange(
                    ATTReadByGroupTypeRequest(
                        startingHandle: start,
                        endingHandle: 0xFFFF,
                        attributeGroupType: BluetoothUUID.primaryService
                    ),
                    as: ATTReadByGroupTypeResponse.self
                )
            } catch .att(let error) where error.code == .attributeNotFound {
                break
            }
            // The groups must follow each other without overlap, in this response and after the earlier ones.
            var next = Int(start)
            for entry in response.attributeData.entries {
                guard Int(entry.handle) >= next, entry.endGroupHandle >= entry.handle else {
                    throw .unexpectedResponse(
                        request: ATTReadByGroupTypeRequest.opcode,
                        "service 0x\(hex(entry.handle))–0x\(hex(entry.endGroupHandle)) repeats or overlaps another"
                    )
                }
                let uuid = try Self.uuid(from: entry.value, request: ATTReadByGroupTypeRequest.opcode)
                found.append(GATTService(uuid: uuid, handle: entry.handle, endHandle: entry.endGroupHandle))
                next = Int(entry.endGroupHandle) + 1
            }
            guard let last = response.attributeData.entries.last?.endGroupHandle, last < 0xFFFF else { break }
            start = last + 1
        }
        remember(services: found)
        return found
    }

    /// Discovers the primary services with `uuid` (Core 5.4 Vol 3 Part G §4.4.2: Find By Type Value).
    public func discoverPrimaryServices(uuid: BluetoothUUID) async throws(GATTError) -> [GATTService] {
        var value = ByteWriter(capacity: 16)
        uuid.encode(into: &value)
        var found: [GATTService] = []
        var start: UInt16 = 1
        while true {
            let response: ATTFindByTypeValueResponse
            do {
                response = try await exchange(
                    ATTFindByTypeValueRequest(
                        startingHandle: start,
                        endingHandle: 0xFFFF,
                        attributeType: 0x2800,
                        attributeValue: value.bytes
                    ),
                    as: ATTFindByTypeValueResponse.self
                )
            } catch .att(let error) where error.code == .attributeNotFound {
                break
            }
            var next = Int(start)
            for range in response.handles {
                guard Int(range.foundAttributeHandle) >= next, range.groupEndHandle >= range.foundAttributeHandle else {
                    throw .unexpectedResponse(
                        request: ATTFindByTypeValueRequest.opcode,
                        "service 0x\(hex(range.foundAttributeHandle))–0x\(hex(range.groupEndHandle)) repeats or overlaps another"
                    )
                }
                found.append(
                    GATTService(uuid: uuid, handle: range.foundAttributeHandle, endHandle: range.groupEndHandle)
                )
                next = Int(range.groupEndHandle) + 1
            }
            guard let last = response.handles.last?.groupEndHandle, last < 0xFFFF else { break }
            start = last + 1
        }
        remember(services: found)
        return found
    }

    /// Finds the included services of `service` (Core 5.4 Vol 3 Part G §4.5.1). A 128-bit included
    /// service UUID is not in the declaration, so it is read from the included service's handle.
    public func discoverIncludedServices(of service: GATTService) async throws(GATTError) -> [GATTIncludedService] {
        let entries = try await readByTypeEntries(BluetoothUUID.include, from: service.handle, to: service.endHandle)
        var found: [GATTIncludedService] = []
        for entry in entries {
            let value = entry.value
            guard value.count == 4 || value.count == 6 else {
                throw .unexpectedResponse(
                    request: ATTReadByTypeRequest.opcode,
                    "include declaration of \(value.count) bytes"
                )
            }
            let start = UInt16(value[0]) | UInt16(value[1]) << 8
            let end = UInt16(value[2]) | UInt16(value[3]) << 8
            let uuid: BluetoothUUID
            if value.count == 6 {
                uuid = BluetoothUUID(UInt16(value[4]) | UInt16(value[5]) << 8)
            } else {
                uuid = try Self.uuid(from: try await read(start), request: ATTReadRequest.opcode)
            }
            let included = GATTService(uuid: uuid, handle: start, endHandle: end, isPrimary: false)
            found.append(GATTIncludedService(declarationHandle: entry.handle, service: included))
        }
        return found
    }

    /// Discovers the characteristics of `service`, all of them or those with `uuid` (Core 5.4 Vol 3
    /// Part G §4.6.1 and §4.6.2: Read By Type of the Characteristic declaration).
    public func discoverCharacteristics(
        of service: GATTService,
        uuid: BluetoothUUID? = nil
    ) async throws(GATTError) -> [GATTCharacteristic] {
        let entries = try await readByTypeEntries(
            BluetoothUUID.characteristic,
            from: service.handle,
            to: service.endHandle
        )
        var declarations: [(handle: UInt16, properties: UInt8, valueHandle: UInt16, uuid: BluetoothUUID)] = []
        for entry in entries {
            let value = entry.value
            guard value.count == 5 || value.count == 19 else {
                throw .unexpectedResponse(
                    request: ATTReadByTypeRequest.opcode,
                    "characteristic declaration of \(value.count) bytes"
                )
            }
            let valueHandle = UInt16(value[1]) | UInt16(value[2]) << 8
            let uuid = try Self.uuid(from: Array(value[3...]), request: ATTReadByTypeRequest.opcode)
            declarations.append((entry.handle, value[0], valueHandle, uuid))
        }
        var all: [GATTCharacteristic] = []
        for (index, declaration) in declarations.enumerated() {
            let end = index + 1 < declarations.count ? declarations[index + 1].handle - 1 : service.endHandle
            // The value follows its declaration, inside the service, before the next declaration.
            guard declaration.valueHandle > declaration.handle, declaration.valueHandle <= end else {
                throw .unexpectedResponse(
                    request: ATTReadByTypeRequest.opcode,
                    "characteristic at 0x\(hex(declaration.handle)) names value handle 0x\(hex(declaration.valueHandle))"
                )
            }
            all.append(
                GATTCharacteristic(
                    uuid: declaration.uuid,
                    declarationHandle: declaration.handle,
                    valueHandle: declaration.valueHandle,
                    properties: GATTCharacteristicProperties(rawValue: declaration.properties),
                    endHandle: end
                )
            )
        }
        state.withLock { $0.characteristics[service.handle] = all }
        guard let uuid else { return all }
        return all.filter { $0.uuid == uuid }
    }

    /// Discovers the descriptors of `characteristic` (Core 5.4 Vol 3 Part G §4.7.1: Find Information).
    public func discoverDescriptors(of characteristic: GATTCharacteristic) async throws(GATTError) -> [GATTDescriptor] {
        var found: [GATTDescriptor] = []
        var start = characteristic.valueHandle &+ 1
        while start > characteristic.valueHandle && start <= characteristic.endHandle {
            let response: ATTFindInformationResponse
            do {
                response = try await exchange(
                    ATTFindInformationRequest(startingHandle: start, endingHandle: characteristic.endHandle),
                    as: ATTFindInformationResponse.self
                )
            } catch .att(let error) where error.code == .attributeNotFound {
                break
            }
            var next = Int(start)
            for pair in response.information.pairs {
                guard Int(pair.handle) >= next, pair.handle <= characteristic.endHandle else {
                    throw .unexpectedResponse(request: ATTFindInformationRequest.opcode, "handles out of order")
                }
                found.append(GATTDescriptor(uuid: pair.uuid, handle: pair.handle))
                next = Int(pair.handle) + 1
            }
            guard let last = response.information.pairs.last?.handle, last < 0xFFFF else { break }
            start = last + 1
        }
        state.withLock { $0.descriptors[characteristic.valueHandle] = found }
        return found
    }

    /// The first characteristic `uuid` of the first primary service `service`, discovered by UUID.
    public func characteristic(
        _ uuid: BluetoothUUID,
        inService service: BluetoothUUID
    ) async throws(GATTError) -> GATTCharacteristic {
        guard let found = try await discoverPrimaryServices(uuid: service).first else {
            throw .notFound("service \(service)")
        }
        guard let characteristic = try await discoverCharacteristics(of: found, uuid: uuid).first else {
            throw .notFound("characteristic \(uuid) in service \(service)")
        }
        return characteristic
    }

    /// Read By Type over a range, following on until Attribute Not Found or the range's end.
    func readByTypeEntries(
        _ type: BluetoothUUID,
        from first: UInt16,
        to last: UInt16
    ) async throws(GATTError) -> [ATTAttributeDataList.Entry] {
        var found: [ATTAttributeDataList.Entry] = []
        var start = first
        while start <= last {
            let response: ATTReadByTypeResponse
            do {
                response = try await exchange(
                    ATTReadByTypeRequest(startingHandle: start, endingHandle: last, attributeType: type),
                    as: ATTReadByTypeResponse.self
                )
            } catch .att(let error) where error.code == .attributeNotFound {
                break
            }
            var next = Int(start)
            for entry in response.attributeData.entries {
                guard Int(entry.handle) >= next, entry.handle <= last else {
                    throw .unexpectedResponse(
                        request: ATTReadByTypeRequest.opcode,
                        "handle 0x\(hex(entry.handle)) repeats, is out of order or out of range"
                    )
                }
                next = Int(entry.handle) + 1
            }
            found.append(contentsOf: response.attributeData.entries)
            guard let handle = response.attributeData.entries.last?.handle, handle < last else { break }
            start = handle + 1
        }
        return found
    }

    static func uuid(from bytes: [UInt8], request: UInt8) throws(GATTError) -> BluetoothUUID {
        let result: Result<BluetoothUUID, DecodeError> = bytes.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            do throws(DecodeError) {
                return .success(try BluetoothUUID(attParsing: &reader))
            } catch {
                return .failure(error)
            }
        }
        do { return try result.get() } catch { throw .invalidResponse(request: request, error) }
    }

    private func remember(services: [GATTService]) {
        state.withLock { state in
            for service in services where !state.services.contains(service) { state.services.append(service) }
            state.services.sort { $0.handle < $1.handle }
        }
    }
}
