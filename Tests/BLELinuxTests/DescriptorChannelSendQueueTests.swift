import BLEHost
import BLETesting
import Dispatch
import Glibc
import Synchronization
import Testing

@testable import BLELinux

/// Sending on a full link: no lock is held across the wait, so the reader keeps delivering and its own
/// sends are queued, and everything reaches the peer in order once it reads again.
@Suite struct DescriptorChannelSendQueueTests {
    @Test func aFullLinkNeverStallsTheReaderAndLosesNoByte() throws {
        let (ours, theirs) = socketPair()
        defer { close(theirs) }
        let link = try DescriptorChannel(
            socket: OwnedDescriptor(rawValue: ours),
            name: "queue-test",
            receiveCapacity: 256
        )
        let replied = Mutex(0)
        try link.start(
            deliver: { pdu in
                // The reader answers each request at once (as the bearer does for a server response).
                var reply: [UInt8] = [0xEE] + Array(pdu)
                let sent = reply.withUnsafeMutableBytes { bytes in
                    (try? link.send(UnsafeRawBufferPointer(bytes))) != nil
                }
                if sent { replied.withLock { $0 += 1 } }
                return nil
            },
            closed: { _ in }
        )
        // Another thread fills the link while the peer reads nothing: the kernel's buffer, then it waits
        // for room (without holding any lock).
        let filler = DispatchSemaphore(value: 0)
        let payload = [UInt8](repeating: 0x42, count: 200)
        let total = 2_000
        DispatchQueue.global().async {
            for index in 0..<total {
                var message = payload
                message[0] = 0x01
                message[1] = UInt8(index & 0xFF)
                message.withUnsafeBytes { _ = try? link.send($0) }
            }
            filler.signal()
        }
        #expect(eventuallyBlocking { link.waitingSenderCount == 1 }, "the filler must be waiting for room")
        // The reader still delivers, and its replies are queued instead of waiting.
        for request in 0..<3 { put(theirs, [0x0A, UInt8(request)]) }
        #expect(eventuallyBlocking { replied.withLock { $0 } == 3 })
        // The peer reads again: every message arrives, the filler's in order, each reply once.
        var fillerIndices: [Int] = []
        var replies: [[UInt8]] = []
        let deadline = DispatchTime.now() + .seconds(30)
        while fillerIndices.count < total || replies.count < 3 {
            guard DispatchTime.now() < deadline, let message = take(theirs) else { break }
            if message.first == 0xEE { replies.append(message) } else { fillerIndices.append(Int(message[1])) }
        }
        #expect(filler.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(fillerIndices.count == total)
        #expect(fillerIndices == (0..<total).map { $0 & 0xFF }, "in order")
        #expect(replies == [[0xEE, 0x0A, 0], [0xEE, 0x0A, 1], [0xEE, 0x0A, 2]])
        link.close()
    }
}
