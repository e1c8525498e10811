public import BLEHost
public import BLEWire
import PicoLink

/// A discovered profile as `hcipico gatt services` prints it: a line per attribute, indented
/// (services, the services they include, characteristics, descriptors, with handles and names), or a
/// JSON object per line for programs.
public enum GATTProfileListing {
    /// Characteristics whose value is a UTF-8 string worth showing in the listing.
    public static let textCharacteristics: Set<BluetoothUUID> = [
        .deviceName, .manufacturerNameString, .modelNumberString, .serialNumberString, .firmwareRevisionString,
        .hardwareRevisionString, .softwareRevisionString,
    ]

    /// Every line of `profile`, in order, handed to `emit`; the readable `textCharacteristics` are read
    /// through `client` and their values shown (a read that fails shows none).
    public static func list(
        _ profile: GATTProfile,
        json: Bool,
        readingTextOn client: GATTClient,
        emit: (String) -> Void
    ) async {
        for service in profile.services {
            emit(line(service.service, json: json))
            for include in service.includes { emit(line(include, in: service.service, json: json)) }
            for entry in service.characteristics {
                let characteristic = entry.characteristic
                var text: String?
                if textCharacteristics.contains(characteristic.uuid), characteristic.properties.contains(.read) {
                    text = (try? await client.read(characteristic)).map { AttributeValueText.line($0) }
                }
                emit(line(characteristic, in: service.service, value: text, json: json))
                for descriptor in entry.descriptors { emit(line(descriptor, of: characteristic, json: json)) }
            }
        }
    }

    /// `service 180F Battery  0x0010–0x0013` (`secondary service …` for one only an include reaches).
    public static func line(_ service: GATTService, json: Bool) -> String {
        if json {
            return "{\"type\":\"service\",\"uuid\":\(JSONText.quoted(service.uuid.description)),"
                + "\"name\":\(nameJSON(service.uuid)),\"primary\":\(service.isPrimary),"
                + "\"handle\":\(service.handle),\"end_handle\":\(service.endHandle)}\n"
        }
        return (service.isPrimary ? "" : "secondary ") + "service \(labelled(service.uuid))  "
            + "\(handle(service.handle))–\(handle(service.endHandle))\n"
    }

    /// `  include 180F Battery  0x0010–0x0013  declaration 0x0015`.
    public static func line(_ include: GATTIncludedService, in service: GATTService, json: Bool) -> String {
        let included = include.service
        if json {
            return "{\"type\":\"include\",\"uuid\":\(JSONText.quoted(included.uuid.description)),"
                + "\"name\":\(nameJSON(included.uuid)),\"service\":\(service.handle),"
                + "\"handle\":\(include.declarationHandle),\"start_handle\":\(included.handle),"
                + "\"end_handle\":\(included.endHandle)}\n"
        }
        return "  include \(labelled(included.uuid))  \(handle(included.handle))–\(handle(included.endHandle))"
            + "  declaration \(handle(include.declarationHandle))\n"
    }

    /// `  characteristic 2A00 Device Name  [read]  declaration 0x0002 value 0x0003  "Pico"`.
    public static func line(
        _ characteristic: GATTCharacteristic,
        in service: GATTService,
        value: String?,
        json: Bool
    ) -> String {
        let properties = propertyNames(characteristic.properties)
        if json {
            let list = properties.map { JSONText.quoted($0) }.joined(separator: ",")
            return "{\"type\":\"characteristic\",\"uuid\":\(JSONText.quoted(characteristic.uuid.description)),"
                + "\"name\":\(nameJSON(characteristic.uuid)),\"service\":\(service.handle),"
                + "\"handle\":\(characteristic.declarationHandle),\"value_handle\":\(characteristic.valueHandle),"
                + "\"properties\":[\(list)]"
                + (value.map { ",\"value_text\":\(JSONText.quoted($0))" } ?? "") + "}\n"
        }
        return "  characteristic \(labelled(characteristic.uuid))  [\(properties.joined(separator: " "))]"
            + "  declaration \(handle(characteristic.declarationHandle))"
            + " value \(handle(characteristic.valueHandle))" + (value.map { "  \"\($0)\"" } ?? "") + "\n"
    }

    /// `    descriptor 2902 Client Characteristic Configuration  0x0004`.
    public static func line(_ descriptor: GATTDescriptor, of characteristic: GATTCharacteristic, json: Bool) -> String {
        if json {
            return "{\"type\":\"descriptor\",\"uuid\":\(JSONText.quoted(descriptor.uuid.description)),"
                + "\"name\":\(nameJSON(descriptor.uuid)),\"characteristic\":\(characteristic.valueHandle),"
                + "\"handle\":\(descriptor.handle)}\n"
        }
        return "    descriptor \(labelled(descriptor.uuid))  \(handle(descriptor.handle))\n"
    }

    /// The property names, in bit order (Core 5.4 Vol 3 Part G §3.3.1.1).
    public static func propertyNames(_ properties: GATTCharacteristicProperties) -> [String] {
        let names: [(GATTCharacteristicProperties, String)] = [
            (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write-without-response"),
            (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
            (.authenticatedSignedWrites, "signed-write"), (.extendedProperties, "extended-properties"),
        ]
        return names.filter { properties.contains($0.0) }.map(\.1)
    }

    private static func labelled(_ uuid: BluetoothUUID) -> String {
        uuid.knownName.map { "\(uuid) \($0)" } ?? "\(uuid)"
    }

    private static func nameJSON(_ uuid: BluetoothUUID) -> String {
        uuid.knownName.map { JSONText.quoted($0) } ?? "null"
    }

    private static func handle(_ value: UInt16) -> String { AttributeValueText.handle(value) }
}
