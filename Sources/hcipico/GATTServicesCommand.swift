import ArgumentParser
import BLEHost
import BLEWire
import PicoLink

/// `hcipico gatt DEVICE services`: the tree of services, characteristics and descriptors.
struct GATTServicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "services",
        abstract: "Discover and print every service, characteristic and descriptor, with handles and names.",
        discussion: """
            One line per attribute, indented: services (UUID, name, handle range; secondary services, \
            which only an include reaches, are marked), the services each includes (UUID, name, range, \
            declaration handle), characteristics (UUID, name, properties, declaration and value handles; \
            the value of Device Name and the Device Information strings), descriptors (UUID, name, \
            handle). With --json, one JSON object per line: {"type":"service"|"include"|"characteristic"\
            |"descriptor", "uuid", "name", handles …}; services carry "primary".
            """
    )

    @OptionGroup var link: LinkOptions

    @Flag(help: "One JSON object per line instead of the indented tree.")
    var json = false

    /// Characteristics whose value is a UTF-8 string worth showing in the tree.
    static let textCharacteristics: Set<BluetoothUUID> = [
        .deviceName, .manufacturerNameString, .modelNumberString, .serialNumberString, .firmwareRevisionString,
        .hardwareRevisionString, .softwareRevisionString,
    ]

    func run() async throws {
        let json = self.json
        try await link.withClient("discovery") { link throws(GATTError) in
            let profile = try await link.client.discoverProfile()
            for service in profile.services {
                ValueText.emit(Self.line(service.service, json: json))
                for include in service.includes {
                    ValueText.emit(Self.line(include, in: service.service, json: json))
                }
                for entry in service.characteristics {
                    let characteristic = entry.characteristic
                    var text: String?
                    if Self.textCharacteristics.contains(characteristic.uuid),
                        characteristic.properties.contains(.read)
                    {
                        text = (try? await link.client.read(characteristic)).map { AttributeValueText.line($0) }
                    }
                    ValueText.emit(Self.line(characteristic, in: service.service, value: text, json: json))
                    for descriptor in entry.descriptors {
                        ValueText.emit(Self.line(descriptor, of: characteristic, json: json))
                    }
                }
            }
        }
    }

    static func line(_ service: GATTService, json: Bool) -> String {
        if json {
            return "{\"type\":\"service\",\"uuid\":\(JSONText.quoted(service.uuid.description)),"
                + "\"name\":\(nameJSON(service.uuid)),\"primary\":\(service.isPrimary),"
                + "\"handle\":\(service.handle),\"end_handle\":\(service.endHandle)}\n"
        }
        return (service.isPrimary ? "" : "secondary ") + "service \(labelled(service.uuid))  "
            + "0x\(hex4(service.handle))–0x\(hex4(service.endHandle))\n"
    }

    static func line(_ include: GATTIncludedService, in service: GATTService, json: Bool) -> String {
        let included = include.service
        if json {
            return "{\"type\":\"include\",\"uuid\":\(JSONText.quoted(included.uuid.description)),"
                + "\"name\":\(nameJSON(included.uuid)),\"service\":\(service.handle),"
                + "\"handle\":\(include.declarationHandle),\"start_handle\":\(included.handle),"
                + "\"end_handle\":\(included.endHandle)}\n"
        }
        return "  include \(labelled(included.uuid))  0x\(hex4(included.handle))–0x\(hex4(included.endHandle))"
            + "  declaration 0x\(hex4(include.declarationHandle))\n"
    }

    static func line(
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
            + "  declaration 0x\(hex4(characteristic.declarationHandle))"
            + " value 0x\(hex4(characteristic.valueHandle))" + (value.map { "  \"\($0)\"" } ?? "") + "\n"
    }

    static func line(_ descriptor: GATTDescriptor, of characteristic: GATTCharacteristic, json: Bool) -> String {
        if json {
            return "{\"type\":\"descriptor\",\"uuid\":\(JSONText.quoted(descriptor.uuid.description)),"
                + "\"name\":\(nameJSON(descriptor.uuid)),\"characteristic\":\(characteristic.valueHandle),"
                + "\"handle\":\(descriptor.handle)}\n"
        }
        return "    descriptor \(labelled(descriptor.uuid))  0x\(hex4(descriptor.handle))\n"
    }

    static func labelled(_ uuid: BluetoothUUID) -> String {
        uuid.knownName.map { "\(uuid) \($0)" } ?? "\(uuid)"
    }

    static func nameJSON(_ uuid: BluetoothUUID) -> String {
        uuid.knownName.map { JSONText.quoted($0) } ?? "null"
    }

    /// The property names, in bit order (Core 5.4 Vol 3 Part G §3.3.1.1).
    static func propertyNames(_ properties: GATTCharacteristicProperties) -> [String] {
        let names: [(GATTCharacteristicProperties, String)] = [
            (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write-without-response"),
            (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
            (.authenticatedSignedWrites, "signed-write"), (.extendedProperties, "extended-properties"),
        ]
        return names.filter { properties.contains($0.0) }.map(\.1)
    }
}
