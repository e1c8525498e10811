import BLETesting
import BLEWire
import Synchronization
import Testing

@testable import BLEHost

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

/// A peer that floods parameter requests gets its newest answered, and no task or command per request.
@Suite("HCIHost parameter request floods")
struct HCIHostParameterFloodTests {
    @Test("of 200 accepted requests, the newest is applied and the ones it superseded are counted, not sent")
    func newestRequestWins() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        let flood = 200
        for index in 0..<flood {
            let request = L2CAPConnectionParameterUpdateRequest(
                identifier: UInt8(index % 250 + 1),
                intervalMin: UInt16(24 + index),
                intervalMax: UInt16(40 + index),
                latency: 0,
                timeout: 600
            )
            harness.controller.l2cap(handle: link.handle, channel: 5, request.encodedBytes)
        }
        let sent = { harness.controller.commands(HCILEConnectionUpdate.opcode) }
        #expect(await eventually { sent().count + harness.host.statistics.supersededCommands == flood })
        // Every request is answered on the signaling channel, accepted.
        #expect(harness.sentFrames(handle: link.handle).filter { $0.channel == 5 }.count == flood)
        let last = try #require(sent().last)
        #expect(Array(last[2..<6]) == [UInt8(24 + flood - 1), 0, UInt8(40 + flood - 1), 0])
    }
}

/// The command timeout's sleepers are never cancelled: one fires only for the deadline still armed.
@Suite("LazyDeadline")
struct LazyDeadlineTests {
    @Test("an armed deadline fires once; a disarmed one never; an earlier one fires on its own time")
    func firesOnlyWhenArmed() async throws {
        let deadline = LazyDeadline()
        let fired = Mutex<[String]>([])
        let first = deadline.arm(at: .now + .seconds(120)) { fired.withLock { $0.append("first") } }
        deadline.disarm(first)
        // Earlier than the sleeper of the first: a sleeper of its own, not a wait of 120 s (eventually
        // gives up long before).
        _ = deadline.arm(at: .now + .milliseconds(50)) { fired.withLock { $0.append("second") } }
        // Generous bounds: the whole suite on two cores can hold a sleeping task back for seconds.
        #expect(await eventually(.seconds(60)) { fired.withLock { $0 } == ["second"] })
        let third = deadline.arm(at: .now + .milliseconds(30)) { fired.withLock { $0.append("third") } }
        #expect(await eventually(.seconds(60)) { fired.withLock { $0 } == ["second", "third"] })
        deadline.disarm(third)
        try await Task.sleep(for: .seconds(3))
        #expect(fired.withLock { $0 } == ["second", "third"])
    }
}
