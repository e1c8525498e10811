import BLEHost
import BLETesting
import BLEWire
import Testing

/// Discovery procedures, client against server over the socketpair, at every test MTU.
@Suite struct GATTDiscoveryTests {
    @Test(arguments: testMTUs) func negotiatesTheMTU(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        #expect(link.client.mtu == mtu)
        #expect(link.server.bearer.mtu == mtu)
    }

    @Test(arguments: testMTUs) func discoversPrimaryServicesAllAndByUUID(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let services = try await link.client.discoverPrimaryServices()
        #expect(
            services == [
                GATTService(uuid: BluetoothUUID(0x1800), handle: link.gap.handle, endHandle: link.gap.endHandle),
                GATTService(
                    uuid: BluetoothUUID.genericAttributeService,
                    handle: link.gatt.handle,
                    endHandle: link.gatt.endHandle
                ),
                GATTService(uuid: GATTFixture.vspService, handle: link.vsp.handle, endHandle: link.vsp.endHandle),
            ]
        )
        let byUUID = try await link.client.discoverPrimaryServices(uuid: GATTFixture.vspService)
        #expect(byUUID == [services[2]])
        #expect(try await link.client.discoverPrimaryServices(uuid: BluetoothUUID(0xABCD)).isEmpty)
        #expect(link.client.cachedServices == services)
    }

    @Test(arguments: testMTUs) func discoversIncludedServicesWith128BitUUIDs(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let service = try await link.client.discoverPrimaryServices(uuid: GATTFixture.vspService)[0]
        let included = try await link.client.discoverIncludedServices(of: service)
        #expect(included.count == 1)
        #expect(included.first?.service.uuid == GATTFixture.secondary)
        #expect(included.first?.service.handle == link.included.handle)
        #expect(included.first?.service.endHandle == link.included.endHandle)
    }

    @Test(arguments: testMTUs) func discoversCharacteristicsAndDescriptors(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let service = try await link.client.discoverPrimaryServices(uuid: GATTFixture.vspService)[0]
        let all = try await link.client.discoverCharacteristics(of: service)
        #expect(all.map(\.uuid) == link.vsp.characteristics.map(\.uuid))
        #expect(all.map(\.valueHandle) == link.vsp.characteristics.map(\.valueHandle))
        #expect(all.map(\.declarationHandle) == link.vsp.characteristics.map(\.declarationHandle))
        #expect(all[0].properties == [.notify, .indicate])
        #expect(all.last?.endHandle == service.endHandle)
        let long = try await link.client.discoverCharacteristics(of: service, uuid: GATTFixture.long)
        #expect(long.count == 1)
        let descriptors = try await link.client.discoverDescriptors(of: long[0])
        #expect(descriptors.map(\.uuid) == [BluetoothUUID.characteristicUserDescription])
        let tx = try await link.client.discoverDescriptors(of: all[0])
        #expect(
            tx == [
                GATTDescriptor(
                    uuid: BluetoothUUID.clientCharacteristicConfiguration,
                    handle: link.vsp.characteristics[0].cccdHandle!
                )
            ]
        )
        #expect(try await link.client.discoverDescriptors(of: all[1]).isEmpty)
        #expect(try await link.client.characteristic(GATTFixture.rx, inService: GATTFixture.vspService) == all[1])
        await #expect(throws: GATTError.notFound("service 180F")) {
            _ = try await link.client.characteristic(GATTFixture.rx, inService: BluetoothUUID(0x180F))
        }
    }
}
