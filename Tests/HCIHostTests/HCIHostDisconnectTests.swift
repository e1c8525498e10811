import BLEHost
import BLETesting
import BLEWire
import Coordination
import Testing

/// Ending a link: one HCI Disconnect however many callers ask, and only once the controller has
/// completed every ACL packet queued for the link (then a short linger), so Write Commands and the
/// last serial bytes are not cut off.
@Suite struct HCIHostDisconnectTests {
    @Test func twoCallersSendOneDisconnect() async throws {
        let harness = try await HostHarness()
        let link = try await harness.connect()
        let first = Task { try await link.disconnect() }
        let second = Task { try await link.disconnect() }
        try await first.value
        try await second.value
        try await link.disconnect()
        harness.controller.settle()
        #expect(harness.controller.commands(HCIDisconnect.opcode).count == 1)
        #expect(link.disconnectReason == 0x16)
    }

    @Test func theDisconnectWaitsForTheControllerToCompleteQueuedPackets() async throws {
        var options = FakeHCIController.Options()
        options.autoComplete = false
        // The drain waits at most the command timeout: a generous one, so that the test's own steps
        // before completing the packet, however long the whole suite holds them back, come first.
        let harness = try await HostHarness(options, timeout: .seconds(120))
        let link = try await harness.connect()
        // A Write Command the controller has taken but not completed.
        let pdu: [UInt8] = [0x52, 0x10, 0x00, 0x5A]
        let sent = pdu.withUnsafeBytes { bytes in Result { () throws(TransportError) in try link.att.send(bytes) } }
        try sent.get()
        let ending = Task { try await link.disconnect() }
        // The disconnect has begun and the packet is still the controller's: Disconnect could go now
        // if it did not wait for the packet.
        #expect(await eventually { link.isDisconnecting })
        harness.controller.settle()
        #expect(harness.controller.commands(HCIDisconnect.opcode).isEmpty, "disconnected before the write left")
        let start = ContinuousClock.now
        harness.controller.completePackets(handle: link.handle, count: 1)
        try await ending.value
        #expect(ContinuousClock.now - start >= HCIConnection.linger)
        #expect(harness.controller.commands(HCIDisconnect.opcode).count == 1)
    }

    /// The link's ATT channel holds the bearer's handlers, the bearer holds the channel: once the link has
    /// ended, the channel lets go of the handlers, so that neither outlives the link (found by the fuzzer:
    /// both leaked with every connection).
    @Test func anEndedLinkLetsGoOfItsBearer() async throws {
        let harness = try await HostHarness()
        let (bearer, channel) = try await Self.bearerOnAnEndedLink(harness)
        harness.controller.settle()
        #expect(await eventually { bearer.object == nil && channel.object == nil })
    }

    private static func bearerOnAnEndedLink(
        _ harness: HostHarness
    ) async throws -> (Weak<ATTBearer>, Weak<HCIATTChannel>) {
        let link = try await harness.connect()
        let bearer = ATTBearer(transport: link.att, clock: ManualClock())
        try bearer.start()
        try await link.disconnect()
        #expect(bearer.closeReason != nil)
        return (Weak(bearer), Weak(link.att))
    }
}

/// A weak reference, to see an object go.
final class Weak<Object: AnyObject>: @unchecked Sendable {
    weak var object: Object?

    init(_ object: Object) { self.object = object }
}
