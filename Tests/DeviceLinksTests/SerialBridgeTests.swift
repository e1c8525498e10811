import BLETesting
import Coordination
import DeviceLinks
import DeviceRuns
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `SerialBridge`, what `hcipico serial` runs: a byte stream bridged to sim:hm10, whose UART is looped
/// back, so every byte sent comes back as a notification.
@Suite struct SerialBridgeTests {
    @Test func theInputComesBackAndTheBridgeEndsWhenTheDeviceIsQuiet() async throws {
        let link = try await LinkOpener(logger: RecordedLog().logger()).open(.simulator(.hm10))
        let received = Mutex<[UInt8]>([])
        let bridge = try await SerialBridge.open(on: link, profile: nil) { bytes in
            received.withLock { $0.append(contentsOf: bytes) }
        }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let sent = Array((0..<3000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let writer = ByteStream(descriptor: ends[1])
        #expect(sent.withUnsafeBytes { writer.write($0) })
        close(ends[1])
        let end = await bridge.run(
            input: ByteStream(descriptor: ends[0]),
            endless: false,
            idle: .milliseconds(200),
            security: nil
        )
        close(ends[0])
        guard case .finished = end else {
            Issue.record("\(end)")
            return
        }
        // The subscription keeps delivering until the link closes: a 200 ms quiet is no sign that the
        // echo is over while the whole suite at once can hold the simulator back for longer.
        #expect(await eventually(.seconds(60)) { received.withLock { $0.count } >= sent.count })
        #expect(received.withLock { $0 } == sent)
        await link.close()
    }

    /// The input of an endless bridge (a pseudo-terminal's) closing ends it, without waiting for quiet.
    @Test func anEndlessBridgeEndsWhenItsInputCloses() async throws {
        let link = try await LinkOpener(logger: RecordedLog().logger()).open(.simulator(.hm10))
        let bridge = try await SerialBridge.open(on: link, profile: nil) { _ in }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[1])
        let end = await bridge.run(
            input: ByteStream(descriptor: ends[0]),
            endless: true,
            idle: .seconds(3600),
            security: nil
        )
        close(ends[0])
        guard case .inputClosed = end else {
            Issue.record("\(end)")
            return
        }
        await link.close()
    }
}
