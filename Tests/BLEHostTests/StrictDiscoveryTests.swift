import BLEHost
import BLETesting
import BLEWire
import Coordination
import Testing

/// Discovery checks each response as a whole against the rest: a group listed twice or overlapping
/// another, a characteristic value outside its declaration's place, a PDU longer than the MTU — all are
/// refused, not shown.
@Suite struct StrictDiscoveryTests {
    /// A client (MTU 23, no exchange) on one end, a raw peer answering by hand on the other.
    func makeClient() async throws -> (GATTClient, RecordingPeer) {
        let (local, remote) = try SocketPairATTTransport.makePair()
        let client = try await GATTClient.connect(transport: local, mtu: 23, clock: ManualClock())
        return (client, try RecordingPeer(remote))
    }

    /// A Read By Group Type Response with 16-bit UUIDs: (start, end, uuid) per group.
    static func groups(_ entries: [(UInt16, UInt16, UInt16)]) -> [UInt8] {
        var pdu: [UInt8] = [0x11, 6]
        for (start, end, uuid) in entries { pdu += le(start) + le(end) + le(uuid) }
        return pdu
    }

    static func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    @Test func aGroupListedTwiceOrOverlappingIsRefused() async throws {
        let cases: [[(UInt16, UInt16, UInt16)]] = [
            [(1, 5, 0x1800), (1, 5, 0x1800)],  // the same group twice
            [(1, 9, 0x1800), (5, 12, 0x180F)],  // overlapping groups
            [(7, 9, 0x1800), (3, 4, 0x180F)],  // out of order
        ]
        for entries in cases {
            let (client, peer) = try await makeClient()
            let discovery = Task { try await client.discoverPrimaryServices() }
            _ = await peer.waitForPDUs(1)
            try peer.send(Self.groups(entries))
            await #expect(throws: GATTError.self, "\(entries)") { try await discovery.value }
        }
    }

    @Test func groupsAcrossResponsesMayNotOverlapEither() async throws {
        let (client, peer) = try await makeClient()
        let discovery = Task { try await client.discoverPrimaryServices() }
        _ = await peer.waitForPDUs(1)
        try peer.send(Self.groups([(1, 9, 0x1800)]))
        _ = await peer.waitForPDUs(2)  // the follow-up from 0x000A
        try peer.send(Self.groups([(9, 12, 0x180F)]))
        await #expect(throws: GATTError.self) { try await discovery.value }
    }

    @Test func aCharacteristicValueOutsideItsPlaceIsRefused() async throws {
        let (client, peer) = try await makeClient()
        let service = GATTService(uuid: BluetoothUUID(UInt16(0x180F)), handle: 1, endHandle: 9)
        let discovery = Task { try await client.discoverCharacteristics(of: service) }
        _ = await peer.waitForPDUs(1)
        // Read By Type Response: declaration at 0x0002 naming value handle 0x0000.
        try peer.send([0x09, 7, 0x02, 0x00, 0x12, 0x00, 0x00, 0x19, 0x2A])
        _ = await peer.waitForPDUs(2)  // the follow-up from 0x0003: nothing more there
        try peer.send([0x01, 0x08, 0x03, 0x00, 0x0A])
        await #expect(throws: GATTError.self) { try await discovery.value }
    }

    @Test func aResponseLongerThanTheMTUIsRefused() async throws {
        let (client, peer) = try await makeClient()
        let discovery = Task { try await client.discoverPrimaryServices() }
        _ = await peer.waitForPDUs(1)
        // 150 well-formed groups: 902 bytes where ATT_MTU is 23.
        var many: [(UInt16, UInt16, UInt16)] = []
        for index in 0..<150 { many.append((UInt16(index * 2 + 1), UInt16(index * 2 + 2), 0x1800)) }
        try peer.send(Self.groups(many))
        await #expect(throws: GATTError.self) { try await discovery.value }
    }

    @Test func aNotificationLongerThanTheMTUIsDropped() async throws {
        let (client, peer) = try await makeClient()
        let received = GATTSubscriptionTests.Values()
        client.bearer.setNotificationHandler { _, value, _ in received.list.withLock { $0.append(Array(value)) } }
        try peer.send([0x1B, 0x03, 0x00] + [UInt8](repeating: 0xAB, count: 100))
        try peer.send([0x1B, 0x03, 0x00, 0x01])
        #expect(await eventually(.seconds(30)) { received.all.count == 1 })
        #expect(received.all == [[0x01]])
        #expect(client.bearer.droppedPDUCount == 1)
    }
}
