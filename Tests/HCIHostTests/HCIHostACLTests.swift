import BLEHost
import BLETesting
import BLEWire
import Synchronization
import Testing

/// Collects what an ATT channel delivers.
final class ATTSink: Sendable {
    let pdus = Mutex<[[UInt8]]>([])
    let closed = Mutex<TransportError?>(nil)

    func attach(_ channel: HCIATTChannel) throws {
        try channel.start(
            receive: { [self] pdu in pdus.withLock { $0.append(Array(pdu)) } },
            closed: { [self] reason in closed.withLock { $0 = reason } }
        )
    }
}

@Suite("HCIHost ACL flow, fragmentation and reassembly")
struct HCIHostACLTests {
    @Test("an ATT PDU is fragmented to the controller's buffer size", arguments: [27, 251])
    func fragmentation(length: Int) async throws {
        let harness = try await HostHarness(.init(leLength: UInt16(length), leCount: 16))
        let link = try await harness.connect()
        let pdu: [UInt8] = [0x52, 0x13, 0x00] + (0..<244).map { UInt8(truncatingIfNeeded: $0) }
        try link.att.send(pdu)
        let packets = harness.sentACL()
        #expect(packets.count == (4 + pdu.count + length - 1) / length)
        #expect(packets.allSatisfy { $0.handle == link.handle && $0.data.count <= length })
        #expect(packets.first?.boundary == 0b00)
        #expect(packets.dropFirst().allSatisfy { $0.boundary == 0b01 })
        let frames = harness.sentFrames(handle: link.handle)
        #expect(frames.count == 1 && frames[0].channel == 4 && frames[0].payload == pdu)
    }

    @Test("credits: only as many packets as the controller buffers, the rest after Number Of Completed Packets")
    func credits() async throws {
        let harness = try await HostHarness(.init(leLength: 27, leCount: 2, autoComplete: false))
        let link = try await harness.connect()
        let pdu = [UInt8](repeating: 0xAB, count: 100)  // 104 octets of L2CAP: 4 packets of ≤ 27
        try link.att.send(pdu)
        #expect(harness.sentACL().count == 2)
        // Each credit is handled on the controller's delivery queue, which sends the next packet there:
        // once it has settled, the count is final.
        harness.controller.completePackets(handle: link.handle, count: 1)
        harness.controller.settle()
        #expect(harness.sentACL().count == 3)
        harness.controller.completePackets(handle: link.handle, count: 1)
        harness.controller.settle()
        #expect(harness.sentACL().count == 4)
        #expect(harness.sentFrames(handle: link.handle).map(\.payload) == [pdu])
    }

    @Test("a disconnection returns the credits its packets held")
    func creditsReturnedOnDisconnect() async throws {
        let harness = try await HostHarness(.init(leLength: 27, leCount: 2, autoComplete: false))
        let first = try await harness.connect()
        let second = try await harness.connect(BluetoothAddress(value: 0xF0_11_22_33_44_56, type: .random))
        try first.att.send([UInt8](repeating: 1, count: 40))  // two packets: all the credits
        try second.att.send([0x0A, 0x03, 0x00])
        #expect(harness.sentACL().count == 2)
        harness.controller.event(
            HCIDisconnectionCompleteEvent(status: .success, connectionHandle: first.handle, reason: 0x08)
        )
        #expect(await eventually { harness.sentACL().count == 3 })
        #expect(harness.sentFrames(handle: second.handle).map(\.payload) == [[0x0A, 0x03, 0x00]])
        #expect(first.disconnectReason == 0x08)
    }

    @Test("reassembly by L2CAP length: oversized, fragmented, and stray continuation")
    func reassembly() async throws {
        let harness = try await HostHarness(.init(leLength: 27, leCount: 4))
        let link = try await harness.connect()
        let sink = ATTSink()
        try sink.attach(link.att)
        // 251 octets in one ACL packet although the controller advertises 27.
        let big: [UInt8] = [0x1B, 0x10, 0x00] + [UInt8](repeating: 0x5A, count: 244)
        harness.controller.l2cap(handle: link.handle, channel: 4, big)
        // The same frame in three fragments, the header itself split.
        let frame = L2CAPBasicHeader(length: UInt16(big.count), channelID: 4).encodedBytes + big
        harness.controller.acl(handle: link.handle, first: true, Array(frame[0..<3]))
        harness.controller.acl(handle: link.handle, first: false, Array(frame[3..<100]))
        harness.controller.acl(handle: link.handle, first: false, Array(frame[100...]))
        // A continuation with no start is dropped.
        harness.controller.acl(handle: link.handle, first: false, [1, 2, 3])
        harness.controller.settle()
        #expect(sink.pdus.withLock { $0 } == [big, big])
        #expect(harness.host.statistics.droppedACL == 1)
    }

    @Test("disconnection mid-transfer fails the pending ATT request and keeps what arrived")
    func disconnectMidTransfer() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        let client = GATTClient(bearer: ATTBearer(transport: link.att))
        let received = Mutex<[[UInt8]]>([])
        client.bearer.setNotificationHandler { _, value, _ in received.withLock { $0.append(Array(value)) } }
        try client.bearer.start()
        harness.controller.l2cap(handle: link.handle, channel: 4, [0x1B, 0x10, 0x00, 0x41])
        let request = Task { try await client.read(0x0010) }
        #expect(await eventually { harness.sentFrames(handle: link.handle).count == 1 })
        harness.controller.event(
            HCIDisconnectionCompleteEvent(status: .success, connectionHandle: link.handle, reason: 0x13)
        )
        await #expect(throws: GATTError.disconnected(.disconnected(reason: 0x13))) { try await request.value }
        #expect(received.withLock { $0 } == [[0x41]])
        var events: [HCIConnectionEvent] = []
        for await event in link.events { events.append(event) }
        #expect(events == [.disconnected(reason: 0x13)])
        #expect(throws: TransportError.disconnected(reason: 0x13)) { try link.att.send([0x0A, 0x01, 0x00]) }
    }
}
