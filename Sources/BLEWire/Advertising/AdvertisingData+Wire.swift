extension AdvertisingData {
    /// Decodes every AD structure of `bytes`. A structure whose data is too short for its type (a
    /// UUID list not a multiple of the UUID width, manufacturer data without a company ID …) is a
    /// located `invalidValue` error; unknown types go to `other`.
    public init(bytes: UnsafeRawBufferPointer) throws(DecodeError) {
        self.init()
        var elements = AdvertisingDataReader(bytes)
        while let element = try elements.next() { try add(element) }
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        let result: Result<AdvertisingData, DecodeError> = bytes.withUnsafeBytes { buffer in
            do throws(DecodeError) { return .success(try AdvertisingData(bytes: buffer)) } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    private mutating func add(_ element: AdvertisingDataElement) throws(DecodeError) {
        let data = element.data
        func invalid() -> DecodeError {
            DecodeError(
                offset: element.offset + 1,
                reason: .invalidValue(field: "AD data length", value: UInt64(data.count))
            )
        }
        switch element.type {
        case .flags:
            guard let first = data.first else { throw invalid() }
            flags = first
        case .completeLocalName, .shortenedLocalName:
            localName = String(decoding: data, as: UTF8.self)
            isLocalNameComplete = element.type == .completeLocalName
        case .txPowerLevel:
            guard let first = data.first else { throw invalid() }
            txPowerLevel = Int8(bitPattern: first)
        case .appearance:
            guard data.count == 2 else { throw invalid() }
            appearance = UInt16(data[0]) | UInt16(data[1]) << 8
        case .manufacturerSpecificData:
            guard data.count >= 2 else { throw invalid() }
            manufacturerData.append(
                ManufacturerData(companyID: UInt16(data[0]) | UInt16(data[1]) << 8, data: Array(data[2...]))
            )
        case .incompleteServiceUUIDs16, .completeServiceUUIDs16, .incompleteServiceUUIDs32, .completeServiceUUIDs32,
            .incompleteServiceUUIDs128, .completeServiceUUIDs128:
            let width = element.type.uuidWidth!
            guard data.count % width == 0 else { throw invalid() }
            var reader = ByteReader(data)
            while !reader.isAtEnd { serviceUUIDs.append(try BluetoothUUID(parsing: &reader, width: width)) }
        case .serviceData16, .serviceData32, .serviceData128:
            let width = element.type.uuidWidth!
            guard data.count >= width else { throw invalid() }
            var reader = ByteReader(data)
            let uuid = try BluetoothUUID(parsing: &reader, width: width)
            serviceData.append(ServiceData(uuid: uuid, data: Array(reader.readRemaining())))
        default:
            other.append(Other(type: element.type, data: Array(data)))
        }
    }

    /// Appends the AD structures: flags, name, service UUIDs (complete lists, one per width), TX power,
    /// appearance, service data, manufacturer data, then `other`. Decoding the result gives this value
    /// back when each UUID sits in the list of its shortest width and the name is valid UTF-8.
    ///
    /// One structure holds at most 254 bytes of data (its length octet counts the type too): a longer
    /// name is cut at a character boundary and sent as the Shortened Local Name; a longer UUID list is
    /// cut after its last whole UUID and sent as the incomplete list of its width; other longer data is
    /// cut at 254 bytes, so the length octet always tells the truth.
    public func encode(into writer: inout ByteWriter) {
        func structure(_ type: AdvertisingDataType, _ body: (inout ByteWriter) -> Void) {
            let lengthOffset = writer.count
            writer.write(UInt8(0))
            writer.write(type.rawValue)
            body(&writer)
            writer.truncate(to: lengthOffset + 2 + Self.maximumFieldLength)
            writer.patch(UInt8(writer.count - lengthOffset - 1), at: lengthOffset)
        }
        if let flags { structure(.flags) { $0.write(flags) } }
        if let localName {
            let (name, complete) = Self.fitting(localName)
            structure(isLocalNameComplete && complete ? .completeLocalName : .shortenedLocalName) {
                $0.write(contentsOf: name.utf8)
            }
        }
        let lists: [(AdvertisingDataType, AdvertisingDataType, [BluetoothUUID])] = [
            (.completeServiceUUIDs16, .incompleteServiceUUIDs16, serviceUUIDs.filter { $0.uuid16 != nil }),
            (
                .completeServiceUUIDs32, .incompleteServiceUUIDs32,
                serviceUUIDs.filter { $0.uuid16 == nil && $0.uuid32 != nil }
            ),
            (.completeServiceUUIDs128, .incompleteServiceUUIDs128, serviceUUIDs.filter { $0.uuid32 == nil }),
        ]
        for (complete, incomplete, uuids) in lists where !uuids.isEmpty {
            let width = complete.uuidWidth!
            let fitting = uuids.prefix(Self.maximumFieldLength / width)
            structure(fitting.count == uuids.count ? complete : incomplete) { writer in
                for uuid in fitting { uuid.encode(into: &writer, width: width) }
            }
        }
        if let txPowerLevel { structure(.txPowerLevel) { $0.write(txPowerLevel) } }
        if let appearance { structure(.appearance) { $0.write(appearance) } }
        for entry in serviceData {
            let type: AdvertisingDataType =
                entry.uuid.uuid16 != nil ? .serviceData16 : entry.uuid.uuid32 != nil ? .serviceData32 : .serviceData128
            structure(type) { writer in
                entry.uuid.encode(into: &writer, width: type.uuidWidth!)
                writer.write(contentsOf: entry.data)
            }
        }
        for entry in manufacturerData {
            structure(.manufacturerSpecificData) { writer in
                writer.write(entry.companyID)
                writer.write(contentsOf: entry.data)
            }
        }
        for entry in other { structure(entry.type) { $0.write(contentsOf: entry.data) } }
    }

    /// The most data bytes one AD structure can hold: 255 (the length octet's largest value) less the type.
    public static let maximumFieldLength = 254

    /// `name` cut to at most `maximumFieldLength` UTF-8 bytes at a character boundary, and whether it is whole.
    static func fitting(_ name: String) -> (String, Bool) {
        guard name.utf8.count > maximumFieldLength else { return (name, true) }
        var cut = ""
        for character in name {
            if cut.utf8.count + character.utf8.count > maximumFieldLength { break }
            cut.append(character)
        }
        return (cut, false)
    }

    /// The encoded AD structures in a new array.
    public var encodedBytes: [UInt8] {
        var writer = ByteWriter(capacity: 31)
        encode(into: &writer)
        return writer.bytes
    }
}
