import BLEHost
import BLETesting
import BLEWire
import Testing

/// `GATTClient.discoverProfile()` and the profile's lookups by handle and by UUID.
@Suite struct GATTProfileTests {
    @Test(arguments: testMTUs) func discoversEveryServiceCharacteristicAndDescriptor(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let profile = try await link.client.discoverProfile()
        // The secondary service comes in handle order, reached through the VSP service's include.
        #expect(
            profile.services.map(\.service.uuid) == [
                BluetoothUUID(0x1800), .genericAttributeService, GATTFixture.secondary, GATTFixture.vspService,
            ]
        )
        #expect(profile.services.map(\.service.isPrimary) == [true, true, false, true])
        try #require(profile.services.count == 4)
        let secondary = profile.services[2]
        #expect(secondary.service.handle == link.included.handle)
        #expect(secondary.service.endHandle == link.included.endHandle)
        #expect(secondary.characteristics.map(\.characteristic.uuid) == [BluetoothUUID(0x2A19)])
        let vsp = try #require(profile.services.last)
        #expect(vsp.includes.map(\.service) == [secondary.service])
        #expect(vsp.includes.first.map { $0.declarationHandle == vsp.service.handle + 1 } == true)
        #expect(profile.services.dropLast().allSatisfy { $0.includes.isEmpty })
        #expect(vsp.service.handle == link.vsp.handle && vsp.service.endHandle == link.vsp.endHandle)
        #expect(
            vsp.characteristics.map(\.characteristic.uuid)
                == [
                    GATTFixture.tx, GATTFixture.rx, GATTFixture.modemOut, GATTFixture.long, GATTFixture.secret,
                    GATTFixture.sink,
                ]
        )
        for (entry, expected) in zip(vsp.characteristics, link.vsp.characteristics) {
            #expect(entry.characteristic.declarationHandle == expected.declarationHandle)
            #expect(entry.characteristic.valueHandle == expected.valueHandle)
            #expect(
                entry.descriptors.first { $0.uuid == .clientCharacteristicConfiguration }?.handle == expected.cccdHandle
            )
        }
        let long = try #require(vsp.characteristics.first { $0.characteristic.uuid == GATTFixture.long })
        #expect(long.descriptors.map(\.uuid) == [.characteristicUserDescription])
        // The caches are filled on the way: a subscription needs no further discovery.
        #expect(link.client.cachedServices.count == 3)
        // A characteristic of the secondary service is found by UUID like any other.
        let level = try profile.attribute(withUUID: BluetoothUUID(0x2A19))
        #expect(try await link.client.read(level.handle) == [99])
    }

    @Test func anIncludedPrimaryServiceIsListedOnceAndAChainOfSecondariesIsFollowed() async throws {
        let (clientEnd, serverEnd) = try SocketPairATTTransport.makePair()
        let database = GATTDatabase()
        let deepest = database.addService(
            GATTServiceDefinition(
                uuid: BluetoothUUID(0xA003),
                isPrimary: false,
                characteristics: [GATTCharacteristicDefinition(uuid: BluetoothUUID(0xB003), properties: .read)]
            )
        )
        let middle = database.addService(
            GATTServiceDefinition(
                uuid: BluetoothUUID(0xA002),
                isPrimary: false,
                includes: [deepest],
                characteristics: []
            )
        )
        let battery = database.addService(
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180F),
                characteristics: [GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: .read)]
            )
        )
        database.addService(
            GATTServiceDefinition(uuid: BluetoothUUID(0xA001), includes: [battery, middle], characteristics: [])
        )
        let bearer = ATTBearer(transport: serverEnd)
        let server = GATTServer(database: database, bearer: bearer)
        try bearer.start()
        let client = try await GATTClient.connect(transport: clientEnd, mtu: 23)
        let profile = try await client.discoverProfile()
        #expect(
            profile.services.map(\.service.uuid)
                == [BluetoothUUID(0xA003), BluetoothUUID(0xA002), BluetoothUUID(0x180F), BluetoothUUID(0xA001)]
        )
        #expect(profile.services.map(\.service.isPrimary) == [false, false, true, true])
        try #require(profile.services.count == 4)
        #expect(profile.services[3].includes.map(\.service.uuid) == [BluetoothUUID(0x180F), BluetoothUUID(0xA002)])
        #expect(profile.services[1].includes.map(\.service.handle) == [deepest.handle])
        #expect(try profile.characteristic(withUUID: BluetoothUUID(0xB003)).valueHandle == deepest.handle + 2)
        withExtendedLifetime(server) {}
    }

    @Test func findsAttributesByUUIDAndHandle() async throws {
        let link = try await GATTFixture.make(mtu: 23)
        let profile = try await link.client.discoverProfile()
        let rx = try profile.characteristic(withUUID: GATTFixture.rx)
        #expect(rx.valueHandle == link.handle(GATTFixture.rx))
        #expect(try profile.attribute(withUUID: GATTFixture.rx).handle == rx.valueHandle)
        #expect(profile.characteristic(at: rx.valueHandle) == rx)
        #expect(profile.characteristic(at: rx.declarationHandle) == rx)
        #expect(profile.characteristic(at: link.vsp.handle) == nil)
        // A descriptor UUID found once names that descriptor.
        let description = try profile.attribute(withUUID: .characteristicUserDescription)
        #expect(try await link.client.read(description.handle) == Array("long".utf8))
    }

    @Test func anAmbiguousOrMissingUUIDFailsWithTheCandidates() async throws {
        let link = try await GATTFixture.make(mtu: 23)
        let profile = try await link.client.discoverProfile()
        // Three characteristics notify or indicate here (Service Changed, TX, ModemOut): three CCCDs.
        #expect(profile.attributes(withUUID: .clientCharacteristicConfiguration).count == 3)
        do {
            _ = try profile.attribute(withUUID: .clientCharacteristicConfiguration)
            Issue.record("an ambiguous UUID was accepted")
        } catch {
            guard case .invalidArgument(let message) = error else {
                Issue.record("expected invalidArgument, got \(error)")
                return
            }
            #expect(message.contains("ambiguous: 3 attributes"))
            for cccd in link.vsp.characteristics.compactMap(\.cccdHandle) {
                #expect(message.contains(String(cccd, radix: 16, uppercase: true).leftPadded(4)))
            }
        }
        #expect(throws: GATTError.notFound("no characteristic or descriptor ABCD")) {
            try profile.attribute(withUUID: BluetoothUUID(0xABCD))
        }
        #expect(throws: GATTError.notFound("no characteristic 2901")) {
            try profile.characteristic(withUUID: .characteristicUserDescription)
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
