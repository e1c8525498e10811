import BLEHost
import BLETesting
import BLEWire
import Testing

@Suite("HCIHost LE signaling and link events")
struct HCIHostSignalingTests {
    @Test("a Connection Parameter Update Request within limits is accepted and applied")
    func parameterUpdateAccepted() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        let request = L2CAPConnectionParameterUpdateRequest(
            identifier: 7,
            intervalMin: 24,
            intervalMax: 40,
            latency: 0,
            timeout: 400
        )
        harness.controller.l2cap(handle: link.handle, channel: 5, request.encodedBytes)
        #expect(await eventually { harness.controller.commandOpcodes.contains(0x2013) })
        let answer = try #require(harness.sentFrames(handle: link.handle).first)
        #expect(answer.channel == 5)
        #expect(answer.payload == L2CAPConnectionParameterUpdateResponse(identifier: 7, result: 0).encodedBytes)
        let update = try #require(harness.controller.commands(0x2013).first)
        #expect(Array(update[0..<10]) == [UInt8(link.handle), 0, 24, 0, 40, 0, 0, 0, 0x90, 0x01])
        var iterator = link.events.makeAsyncIterator()
        let parameters = HCIConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 400)
        #expect(await iterator.next() == .parameterRequest(parameters, accepted: true, viaL2CAP: true))
    }

    @Test("a request outside the limits is rejected, and nothing is applied")
    func parameterUpdateRejected() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        // Supervision timeout 100 ms is shorter than (1 + 4) × 50 ms × 2: invalid.
        let request = L2CAPConnectionParameterUpdateRequest(
            identifier: 9,
            intervalMin: 40,
            intervalMax: 40,
            latency: 4,
            timeout: 10
        )
        harness.controller.l2cap(handle: link.handle, channel: 5, request.encodedBytes)
        #expect(await eventually { !harness.sentFrames(handle: link.handle).isEmpty })
        #expect(
            harness.sentFrames(handle: link.handle)[0].payload
                == L2CAPConnectionParameterUpdateResponse(identifier: 9, result: 1).encodedBytes
        )
        try await Task.sleep(for: .milliseconds(20))
        #expect(!harness.controller.commandOpcodes.contains(0x2013))
    }

    @Test("an unknown signaling command gets Command Reject (not understood)")
    func commandReject() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        harness.controller.l2cap(handle: link.handle, channel: 5, [0x7E, 0x21, 0x00, 0x00])
        #expect(await eventually { !harness.sentFrames(handle: link.handle).isEmpty })
        let answer = harness.sentFrames(handle: link.handle)[0]
        #expect(answer.payload == L2CAPCommandReject(identifier: 0x21, reason: 0, data: []).encodedBytes)
        #expect(harness.host.statistics.rejectedSignaling == 1)
    }

    @Test("LE Remote Connection Parameter Request is replied to; an invalid one negatively")
    func remoteParameterRequest() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        harness.controller.event(
            HCILERemoteConnectionParameterRequestEvent(
                connectionHandle: link.handle,
                intervalMin: 6,
                intervalMax: 12,
                maxLatency: 0,
                timeout: 100
            )
        )
        #expect(await eventually { harness.controller.commandOpcodes.contains(0x2020) })
        let reply = try #require(harness.controller.commands(0x2020).first)
        #expect(Array(reply[0..<10]) == [UInt8(link.handle), 0, 6, 0, 12, 0, 0, 0, 100, 0])
        harness.controller.event(
            HCILERemoteConnectionParameterRequestEvent(
                connectionHandle: link.handle,
                intervalMin: 12,
                intervalMax: 6,
                maxLatency: 0,
                timeout: 100
            )
        )
        #expect(await eventually { harness.controller.commandOpcodes.contains(0x2021) })
        #expect(harness.controller.commands(0x2021).first == [UInt8(link.handle), 0, 0x3B])
    }

    @Test("Data Length Change, PHY Update and Connection Update surface as link events, in order")
    func linkEvents() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        harness.controller.event(
            HCILEDataLengthChangeEvent(
                connectionHandle: link.handle,
                maxTxOctets: 251,
                maxTxTime: 2120,
                maxRxOctets: 251,
                maxRxTime: 2120
            )
        )
        harness.controller.event(
            HCILEPHYUpdateCompleteEvent(status: .success, connectionHandle: link.handle, txPHY: 2, rxPHY: 2)
        )
        harness.controller.event(
            HCILEConnectionUpdateCompleteEvent(
                status: .success,
                connectionHandle: link.handle,
                connectionInterval: 24,
                peripheralLatency: 0,
                supervisionTimeout: 400
            )
        )
        try await link.disconnect()
        var events: [HCIConnectionEvent] = []
        for await event in link.events { events.append(event) }
        #expect(
            events == [
                .dataLengthChanged(maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 251, maxRxTime: 2120),
                .phyUpdated(status: .success, tx: 2, rx: 2),
                .parametersUpdated(status: .success, interval: 24, latency: 0, supervisionTimeout: 400),
                .disconnected(reason: 0x16),
            ]
        )
        #expect(link.parameters.interval == 24)
    }
}
