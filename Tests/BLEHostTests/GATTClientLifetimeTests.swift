import BLEHost
import BLETesting
import Coordination
import Synchronization
import Testing

/// The bearer holds its client strongly (no weak reference on the notification path): a client keeps
/// receiving while its bearer is open, whoever else still holds it, and both are freed once the bearer
/// closes, a request still in flight or not.
@Suite struct GATTClientLifetimeTests {
    let clock = ManualClock()

    final class Received: Sendable {
        let values = Mutex<[[UInt8]]>([])
    }

    @Test func aClientNobodyElseHoldsKeepsReceivingUntilItsBearerCloses() async throws {
        let (bearer, link) = try embeddedBearer(clock: clock)
        let received = Received()
        weak var weakClient: GATTClient?
        do {
            let client = GATTClient(bearer: bearer)
            weakClient = client
            let tx = GATTCharacteristic(
                uuid: .lairdVSPTx,
                declarationHandle: 0x0010,
                valueHandle: 0x0011,
                properties: .notify,
                endHandle: 0x0012
            )
            let subscribing = Task {
                try await client.subscribe(to: tx) { value in received.values.withLock { $0.append(Array(value)) } }
            }
            #expect(await eventually { link.outbound.count == 1 })
            try #require(link.outbound[0] == [0x04, 0x12, 0x00, 0x12, 0x00], "Find Information for the CCCD")
            link.deliver([0x05, 0x01, 0x12, 0x00, 0x02, 0x29])
            #expect(await eventually { link.outbound.count == 2 })
            try #require(
                link.outbound.count == 2 && link.outbound[1] == [0x12, 0x12, 0x00, 0x01, 0x00],
                "the CCCD write"
            )
            link.deliver([0x13])
            _ = try await subscribing.value
        }
        link.deliver([0x1B, 0x11, 0x00, 0xA1, 0xA2])
        #expect(weakClient != nil, "the open bearer holds its client")
        #expect(received.values.withLock { $0 } == [[0xA1, 0xA2]])
        bearer.close()
        #expect(weakClient == nil, "a closed bearer lets its client go")
    }

    @Test func aClosedBearerWithARequestInFlightLetsItsClientGo() async throws {
        let (bearer, link) = try embeddedBearer(clock: clock)
        weak var weakClient: GATTClient?
        let reading: Task<[UInt8], any Error>
        do {
            let client = GATTClient(bearer: bearer)
            weakClient = client
            reading = Task { try await client.read(0x0003) }
        }
        #expect(await eventually { link.outbound.count == 1 })
        bearer.close()
        await #expect(throws: GATTError.self) { try await reading.value }
        #expect(weakClient == nil, "the transaction's wake on the clock holds the bearer, not the client")
    }
}
