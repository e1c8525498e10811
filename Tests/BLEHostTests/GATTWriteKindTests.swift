import BLEHost
import BLEWire
import Testing

/// Which kind of write a characteristic takes, as its properties declare it.
@Suite struct GATTWriteKindTests {
    static func characteristic(_ value: UInt16, _ properties: GATTCharacteristicProperties) -> GATTCharacteristic {
        GATTCharacteristic(
            uuid: BluetoothUUID(0xFFF0 + value),
            declarationHandle: value - 1,
            valueHandle: value,
            properties: properties,
            endHandle: value + 1
        )
    }

    static let profile = GATTProfile(services: [
        GATTProfile.Service(
            service: GATTService(uuid: BluetoothUUID(0xFFE0), handle: 1, endHandle: 20),
            characteristics: [
                .init(characteristic: characteristic(3, [.read, .write]), descriptors: []),
                .init(characteristic: characteristic(6, [.writeWithoutResponse]), descriptors: []),
                .init(characteristic: characteristic(9, [.write, .writeWithoutResponse, .notify]), descriptors: []),
                .init(
                    characteristic: characteristic(12, [.notify]),
                    descriptors: [GATTDescriptor(uuid: .clientCharacteristicConfiguration, handle: 13)]
                ),
            ]
        )
    ])

    @Test func aWriteCommandIsRefusedOnlyWhereTheCharacteristicDoesNotDeclareIt() {
        #expect(Self.profile.characteristicRefusingWriteCommands(at: 3)?.valueHandle == 3)
        #expect(Self.profile.characteristicRefusingWriteCommands(at: 6) == nil)
        #expect(Self.profile.characteristicRefusingWriteCommands(at: 9) == nil)
        #expect(Self.profile.characteristicRefusingWriteCommands(at: 2) == nil, "a declaration is not a value")
        #expect(Self.profile.characteristicRefusingWriteCommands(at: 13) == nil, "a descriptor declares nothing")
    }

    @Test func aValueGoesAsAWriteCommandOnlyWhereThatIsAllTheCharacteristicTakes() {
        #expect(Self.profile.takesOnlyWriteCommands(at: 6))
        #expect(!Self.profile.takesOnlyWriteCommands(at: 3))
        #expect(!Self.profile.takesOnlyWriteCommands(at: 9), "a Write Request where both are declared")
        #expect(!Self.profile.takesOnlyWriteCommands(at: 13))
    }
}
