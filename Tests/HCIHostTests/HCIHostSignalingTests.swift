import BLETesting
import BLEWire
import Coordination
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
        harness.controller.settle()  // the request has been handled: answered, and decided on
        #expect(
            harness.sentFrames(handle: link.handle).first?.payload
                == L2CAPConnectionParameterUpdateResponse(identifier: 9, result: 1).encodedBytes
        )
        #expect(link.parameterUpdates.isIdle, "no LE Connection Update on its way or waiting")
        #expect(!harness.controller.commandOpcodes.contains(0x2013))
    }

    @Test("a flood of requests while the controller holds every credit queues a bounded number of answers")
    func answersToAFloodAreBounded() async throws {
        let harness = try await HostHarness(.init(autoComplete: false, records: false))
        let link = try await harness.connect()
        // Outside the limits, so each one is answered (rejected) and nothing else is sent.
        let flood = 10_000
        for identifier in 0..<flood {
            let request = L2CAPConnectionParameterUpdateRequest(
                identifier: UInt8(truncatingIfNeeded: identifier | 1),
                intervalMin: 40,
                intervalMax: 40,
                latency: 4,
                timeout: 10
            )
            harness.controller.l2cap(handle: link.handle, channel: 5, request.encodedBytes)
        }
        harness.controller.settle()
        let credits = Int(harness.controller.options.leCount)
        let (queued, unanswered) = harness.host.state.withLock {
            ($0.flow.queuedSignalingAnswers, $0.statistics.unansweredSignaling)
        }
        #expect(queued == HCIACLFlow.signalingAnswerLimit)
        #expect(unanswered == flood - credits - HCIACLFlow.signalingAnswerLimit)
        // Credits come back: the waiting answers go out and the queue lets its room go.
        harness.controller.completePackets(handle: link.handle, count: UInt16(credits))
        for _ in 0..<(HCIACLFlow.signalingAnswerLimit / credits + 1) {
            harness.controller.completePackets(handle: link.handle, count: UInt16(credits))
        }
        harness.controller.settle()
        let (left, capacity) = harness.host.state.withLock { ($0.flow.queuedSignalingAnswers, $0.flow.queue.capacity) }
        #expect(left == 0)
        #expect(capacity <= HCIACLFlow.retainedCapacity)
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

/// The command timeout on a manual clock: a deadline fires only while it is the one armed, and the
/// clock is asked for a wake only when none is due by the new deadline.
@Suite("LazyDeadline")
struct LazyDeadlineTests {
    @Test("an armed deadline fires once; a disarmed one never; an earlier one fires on its own time")
    func firesOnlyWhenArmed() {
        let clock = ManualClock()
        let deadline = LazyDeadline(clock: clock)
        let fired = Mutex<[String]>([])
        let first = deadline.arm(after: .seconds(120)) { fired.withLock { $0.append("first") } }
        deadline.disarm(first)
        #expect(clock.pendingWakes == 1)
        // Earlier than the wake asked for the first: a wake of its own, not a wait of 120 s.
        _ = deadline.arm(after: .milliseconds(50)) { fired.withLock { $0.append("second") } }
        #expect(clock.pendingWakes == 2)
        clock.advance(by: .milliseconds(49))
        #expect(fired.withLock { $0 }.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(fired.withLock { $0 } == ["second"])
        // Later than the wake still due at 120 s: no new wake; that one hands over.
        let third = deadline.arm(after: .seconds(200)) { fired.withLock { $0.append("third") } }
        #expect(clock.pendingWakes == 1)
        clock.advance(by: .seconds(120))
        #expect(fired.withLock { $0 } == ["second"], "not yet: the wake at 120 s asks for one at 200 s")
        #expect(clock.pendingWakes == 1)
        deadline.disarm(third)
        clock.advance(by: .seconds(200))
        #expect(fired.withLock { $0 } == ["second"], "disarmed before its time")
        let fourth = deadline.arm(after: .seconds(1)) { fired.withLock { $0.append("fourth") } }
        clock.advance(by: .seconds(1))
        #expect(fired.withLock { $0 } == ["second", "fourth"])
        deadline.disarm(fourth)
        #expect(clock.pendingWakes == 0)
    }
}
