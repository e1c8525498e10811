import BLEHost
import BLETesting
import BLEWire
import Synchronization
import Testing

/// A controller (or a peer through it) that sends LE Connection Complete nobody asked for must not take
/// over a live link: the completion is reported and ignored.
@Suite("HCIHost keeps live links against stray LE Connection Complete events")
struct HCIHostConnectionHijackTests {
    static func completion(handle: UInt16, peer: BluetoothAddress) -> HCILEConnectionCompleteEvent {
        HCILEConnectionCompleteEvent(
            status: .success,
            connectionHandle: handle,
            role: 0,
            peerAddressType: 1,
            peerAddress: peer,
            connectionInterval: 6,
            peripheralLatency: 0,
            supervisionTimeout: 200,
            centralClockAccuracy: 0
        )
    }

    @Test("a second completion for a live handle does not replace the link, which keeps receiving")
    func aSecondCompletionForALiveHandleIsIgnored() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        let sink = ATTSink()
        try sink.attach(link.att)
        let intruder = BluetoothAddress(value: 0xC0_FF_EE_00_00_01, type: .random)
        let before = harness.host.statistics.ignoredEvents
        harness.controller.event(Self.completion(handle: link.handle, peer: intruder))
        #expect(await eventually { harness.host.statistics.ignoredEvents == before + 1 })
        // A notification for the handle still reaches the original link's ATT channel.
        harness.controller.l2cap(handle: link.handle, channel: 4, [0x1B, 0x03, 0x00, 0x2A])
        #expect(await eventually { sink.pdus.withLock { $0 } == [[0x1B, 0x03, 0x00, 0x2A]] })
        #expect(link.peer.value == HostHarness.peer.value)
    }

    @Test("a completion with no connect pending is ignored")
    func anUnsolicitedCompletionIsIgnored() async throws {
        let harness = try await HostHarness()
        let before = harness.host.statistics.ignoredEvents
        harness.controller.event(Self.completion(handle: 0x0077, peer: HostHarness.peer))
        #expect(await eventually { harness.host.statistics.ignoredEvents == before + 1 })
        // The next connect gets its own completion.
        let link = try await harness.connect()
        #expect(link.handle != 0x0077)
    }
}

/// Link events nobody reads are bounded: the newest are kept, the rest counted.
@Suite("HCIConnection.events is bounded")
struct HCIConnectionEventBoundTests {
    /// `times` LE Connection Update Complete events on `link`, the interval 6 + index % 100.
    static func update(_ link: HCIConnection, times: Int, from harness: HostHarness) {
        for index in 0..<times {
            harness.controller.event(
                HCILEConnectionUpdateCompleteEvent(
                    status: .success,
                    connectionHandle: link.handle,
                    connectionInterval: UInt16(6 + index % 100),
                    peripheralLatency: 0,
                    supervisionTimeout: 200
                )
            )
        }
    }

    @Test("2,000 LE Connection Update Complete events nobody reads keep the newest, count the rest")
    func floodedUpdatesAreBounded() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        let flood = 2_000
        Self.update(link, times: flood, from: harness)
        let limit = HCIConnection.eventLimit
        #expect(await eventually { harness.host.statistics.droppedLinkEvents == flood - limit })
        harness.controller.event(
            HCIDisconnectionCompleteEvent(status: .success, connectionHandle: link.handle, reason: 0x13)
        )
        var kept: [HCIConnectionEvent] = []
        for await event in link.events { kept.append(event) }
        // The newest updates, in order, then the disconnection (which the bound never pushes out).
        let updates = kept.dropLast().map { event -> Int? in
            guard case .parametersUpdated(_, let interval, _, _) = event else { return nil }
            return Int(interval)
        }
        #expect(updates.count >= limit - 1 && updates.count <= limit)
        #expect(updates == (flood - updates.count..<flood).map { 6 + $0 % 100 })
        #expect(kept.last == .disconnected(reason: 0x13))
    }

    /// What logs a link's events at debug level observes them as they come, with no task of its own
    /// and whether or not anything reads `events`: every event, in order, none dropped.
    @Test("an observer hears every event, in order, while nobody reads events")
    func anObserverHearsEveryEvent() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        let heard = Mutex<[HCIConnectionEvent]>([])
        link.observeEvents { event in heard.withLock { $0.append(event) } }
        let count = HCIConnection.eventLimit + 50
        Self.update(link, times: count, from: harness)
        harness.controller.event(
            HCIDisconnectionCompleteEvent(status: .success, connectionHandle: link.handle, reason: 0x13)
        )
        #expect(await eventually { heard.withLock { $0.last } == .disconnected(reason: 0x13) })
        let intervals = heard.withLock { $0 }.dropLast().map { event -> Int? in
            guard case .parametersUpdated(_, let interval, _, _) = event else { return nil }
            return Int(interval)
        }
        #expect(intervals == (0..<count).map { 6 + $0 % 100 })
    }
}
