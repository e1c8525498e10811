import BLEHost
import BLETesting
import BLEWire
import Coordination
import Synchronization
import Testing

/// Subscriptions, notifications, indications and Service Changed, at every test MTU.
@Suite struct GATTSubscriptionTests {
    /// Collects values delivered to a callback.
    final class Values: Sendable {
        let list = Mutex<[[UInt8]]>([])
        let ended = Mutex<GATTError?>(nil)
        var all: [[UInt8]] { list.withLock { $0 } }
        var endReason: GATTError? { ended.withLock { $0 } }
    }

    @Test(arguments: testMTUs) func notificationsReachTheSyncCallbackInOrder(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let tx = try await link.characteristic(GATTFixture.tx)
        let values = Values()
        let subscription = try await link.client.subscribe(to: tx) { value in
            values.list.withLock { $0.append(Array(value)) }
        }
        #expect(subscription.kind == .notifications)
        #expect(link.server.isSubscribed(tx.valueHandle, .notifications))
        let size = mtu - 3
        let sent = (0..<500).map { index in (0..<size).map { UInt8(truncatingIfNeeded: index &+ $0) } }
        for value in sent { #expect(try link.server.notify(tx.valueHandle, value: value)) }
        // A value longer than ATT_MTU − 3 is cut to fit.
        #expect(try link.server.notify(tx.valueHandle, value: Array(repeating: 0x11, count: mtu)))
        #expect(await eventually(.seconds(30)) { values.all.count == sent.count + 1 })
        #expect(values.all == sent + [Array(repeating: 0x11, count: mtu - 3)])
        try await link.client.unsubscribe(subscription)
        #expect(!link.server.isSubscribed(tx.valueHandle, .notifications))
        #expect(try !link.server.notify(tx.valueHandle, value: [1]))
    }

    @Test func eachValueReachesEverySubscriberOfItsHandleInOrderAndOnlyThem() async throws {
        let link = try await GATTFixture.make(mtu: 247)
        let tx = try await link.characteristic(GATTFixture.tx)
        let modemOut = try await link.characteristic(GATTFixture.modemOut)
        let log = Mutex<[String]>([])
        func record(_ name: String) -> GATTClient.ValueCallback {
            { value in log.withLock { $0.append("\(name) \(value.first ?? 0)") } }
        }
        let first = try await link.client.subscribe(to: tx, record("first"))
        _ = try await link.client.subscribe(to: modemOut, record("modem"))
        let second = try await link.client.subscribe(to: tx, record("second"))
        try link.server.notify(tx.valueHandle, value: [1])
        try link.server.notify(modemOut.valueHandle, value: [2])
        // A read behind the notifications: once it is answered, both have been delivered.
        _ = try await link.client.read(modemOut.valueHandle)
        #expect(log.withLock { $0 } == ["first 1", "second 1", "modem 2"])
        // The CCCD stays written while a subscriber of its handle is left.
        try await link.client.unsubscribe(first)
        #expect(link.server.isSubscribed(tx.valueHandle, .notifications))
        try link.server.notify(tx.valueHandle, value: [3])
        _ = try await link.client.read(modemOut.valueHandle)
        #expect(log.withLock { $0 } == ["first 1", "second 1", "modem 2", "second 3"])
        try await link.client.unsubscribe(second)
        #expect(!link.server.isSubscribed(tx.valueHandle, .notifications))
        #expect(link.server.isSubscribed(modemOut.valueHandle, .notifications))
        // Subscribing again after the handle's last subscriber left writes the CCCD again.
        _ = try await link.client.subscribe(to: tx, record("third"))
        try link.server.notify(tx.valueHandle, value: [4])
        _ = try await link.client.read(modemOut.valueHandle)
        #expect(log.withLock { $0 }.last == "third 4")
    }

    @Test(arguments: testMTUs) func notificationsAsAnAsyncSequence(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let tx = try await link.characteristic(GATTFixture.tx)
        let stream = try await link.client.notifications(of: tx)
        for index in 0..<100 { try link.server.notify(tx.valueHandle, value: [UInt8(index), 0xA5]) }
        var seen: [[UInt8]] = []
        for try await value in stream {
            seen.append(value)
            if seen.count == 100 { break }
        }
        #expect(seen == (0..<100).map { [UInt8($0), 0xA5] })
    }

    @Test(.timeLimit(.minutes(2))) func unsubscribingFinishesTheStreamAfterWhatCameBefore() async throws {
        let link = try await GATTFixture.make(mtu: 247)
        let tx = try await link.characteristic(GATTFixture.tx)
        let stream = try await link.client.notifications(of: tx)
        for index in 0..<3 { try link.server.notify(tx.valueHandle, value: [UInt8(index)]) }
        // A write request behind the notifications: once it is answered, all three have been delivered.
        _ = try await link.client.read(tx.valueHandle + 1)
        try await link.client.unsubscribe(stream.subscription)
        #expect(!link.server.isSubscribed(tx.valueHandle, .notifications))
        var seen: [[UInt8]] = []
        for try await value in stream { seen.append(value) }  // ends: the loop would hang otherwise
        #expect(seen == [[0], [1], [2]])
    }

    @Test(arguments: testMTUs) func indicationsAreConfirmed(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let tx = try await link.characteristic(GATTFixture.tx)
        let values = Values()
        let subscription = try await link.client.subscribe(to: tx, kind: .indications) { value in
            values.list.withLock { $0.append(Array(value)) }
        }
        #expect(link.server.isSubscribed(tx.valueHandle, .indications))
        #expect(!link.server.isSubscribed(tx.valueHandle, .notifications))
        for index in 0..<20 { #expect(try await link.server.indicate(tx.valueHandle, value: [UInt8(index)])) }
        #expect(values.all == (0..<20).map { [UInt8($0)] })
        // Notifications and indications on one characteristic: both CCCD bits, kept until the last goes.
        let second = try await link.client.subscribe(to: tx, kind: .notifications) { _ in }
        #expect(link.database.value(of: tx.valueHandle + 1) == [0, 0], "the CCCD is per connection, not stored")
        #expect(link.server.isSubscribed(tx.valueHandle, .notifications))
        try await link.client.unsubscribe(subscription)
        #expect(!link.server.isSubscribed(tx.valueHandle, .indications))
        #expect(link.server.isSubscribed(tx.valueHandle, .notifications))
        try await link.client.unsubscribe(second)
        #expect(try await link.client.read(tx.valueHandle + 1) == [0, 0])
    }

    @Test func refusesToSubscribeWithoutNotifyOrCCCD() async throws {
        let link = try await GATTFixture.make(mtu: 185)
        let long = try await link.characteristic(GATTFixture.long)
        await #expect(throws: GATTError.self) { _ = try await link.client.subscribe(to: long) { _ in } }
        await #expect(throws: GATTError.notFound("no Client Characteristic Configuration descriptor for \(long)")) {
            _ = try await link.client.subscribe(to: long, kind: .notifications) { _ in }
        }
    }

    @Test func serviceChangedInvalidatesCacheAndEndsSubscriptions() async throws {
        let link = try await GATTFixture.make(mtu: 247)
        #expect(try await link.client.enableServiceChanged())
        let services = try await link.client.discoverPrimaryServices()
        let vsp = services[2]
        _ = try await link.client.discoverCharacteristics(of: vsp)
        let tx = try await link.characteristic(GATTFixture.tx)
        let values = Values()
        _ = try await link.client.subscribe(to: tx, ended: { reason in values.ended.withLock { $0 = reason } }) { _ in }
        let ranges = Mutex<[ClosedRange<UInt16>]>([])
        link.client.onServiceChanged { start, end in ranges.withLock { $0.append(start...end) } }
        let changed = link.gatt.valueHandle(of: BluetoothUUID.serviceChanged)!
        let range: [UInt8] = [
            UInt8(vsp.handle & 0xFF), UInt8(vsp.handle >> 8), UInt8(vsp.endHandle & 0xFF), UInt8(vsp.endHandle >> 8),
        ]
        #expect(try await link.server.indicate(changed, value: range))
        #expect(values.endReason == .serviceChanged(start: vsp.handle, end: vsp.endHandle))
        #expect(ranges.withLock { $0 } == [vsp.handle...vsp.endHandle])
        #expect(link.client.cachedServices == Array(services.prefix(2)))
        #expect(link.client.cachedCharacteristics(of: vsp).isEmpty)
    }

    @Test func disconnectMidRequestFailsItAndEverySubscription() async throws {
        let link = try await GATTFixture.make(mtu: 185)
        let tx = try await link.characteristic(GATTFixture.tx)
        let modemOut = try await link.characteristic(GATTFixture.modemOut)
        let values = Values()
        let other = Values()
        _ = try await link.client.subscribe(to: tx, ended: { reason in values.ended.withLock { $0 = reason } }) { _ in }
        _ = try await link.client.subscribe(to: modemOut, ended: { reason in other.ended.withLock { $0 = reason } }) {
            _ in
        }
        let stream = try await link.client.notifications(of: tx)
        // The server's link drops instead of sending its next Read Response.
        link.serverTransport.injectFaults(ATTFault.on(opcode: ATTReadResponse.opcode, .disconnect))
        let lost = GATTError.disconnected(.disconnected(reason: nil))
        await #expect(throws: lost) { _ = try await link.client.read(tx.valueHandle + 1) }
        // The subscriptions end on the reader thread; the failed request may resume first.
        #expect(await eventually(.seconds(30)) { values.endReason == lost && other.endReason == lost })
        await #expect(throws: lost) { for try await _ in stream {} }
        await #expect(throws: lost) { try await link.client.write([1], to: tx.valueHandle + 1) }
        await #expect(throws: lost) { _ = try await link.client.subscribe(to: tx) { _ in } }
    }

    @Test func pacingHoldsWritesUntilCreditsOrClearToSend() async throws {
        let link = try await GATTFixture.make(mtu: 185)
        let rx = link.handle(GATTFixture.rx)
        let credits = GATTCreditPacing(credits: 2)
        let client = link.client
        let writer = Task {
            for index in 0..<5 { try await client.writeWithoutResponse([UInt8(index)], to: rx, pacing: credits) }
        }
        // The third write waits for a credit: the state in which it could have gone out.
        #expect(await eventually(.seconds(30)) { credits.waitingCount == 1 && link.received.all.count == 2 })
        #expect(link.received.all.count == 2, "no third write without a credit")
        credits.grant(3)
        try await writer.value
        #expect(await eventually(.seconds(30)) { link.received.all.count == 5 })
        #expect(link.received.all == (0..<5).map { [UInt8($0)] })

        let line = GATTFlowControlPacing(clearToSend: false)
        let held = Task { try await client.writeWithoutResponse([0x42], to: rx, pacing: line) }
        #expect(await eventually(.seconds(30)) { line.waitingCount == 1 })
        #expect(link.received.all.count == 5, "held while the line is closed")
        [UInt8(1)].withUnsafeBytes { line.update(fromFlowControlValue: $0) }
        try await held.value
        #expect(await eventually(.seconds(30)) { link.received.all.last == [0x42] })

        // A write waiting for the line fails, not hangs, when the link goes.
        line.setClearToSend(false)
        let stuck = Task { try await client.writeWithoutResponse([0x43], to: rx, pacing: line) }
        #expect(await eventually(.seconds(30)) { line.waitingCount == 1 })
        link.client.bearer.close()
        await #expect(throws: GATTError.disconnected(.closed)) { try await stuck.value }
    }

    @Test func byteBudgetPacingSpreadsWrites() async throws {
        let clock = ManualClock(skipsIdleTime: true)
        let budget = GATTByteBudgetPacing(bytesPerSecond: 10_000, burst: 100, clock: clock)
        try await budget.reserve(100)
        #expect(clock.now == .zero, "a full bucket: the first 100 bytes go at once")
        for _ in 0..<5 { try await budget.reserve(100) }  // 500 more bytes at 10 kB/s
        let elapsed = clock.now
        #expect(elapsed >= .milliseconds(50) && elapsed < .microseconds(50_010), "took \(elapsed)")
    }
}
