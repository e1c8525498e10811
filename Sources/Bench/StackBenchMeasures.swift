import BLEHost
import BLETesting
import Coordination
import Glibc
import Histogram
import Synchronization

/// The individual measurements of the `stack` suite.
enum StackMeasures {
    /// Messages per second through a bare `recv` loop on a `SOCK_SEQPACKET` socketpair: one thread
    /// sends `count` messages of `size` bytes, another receives them. The ceiling for the stack. Also the
    /// sending thread's and the receiving thread's CPU nanoseconds per message (the receiver's from its
    /// first message to its last).
    static func bareRecvRate(size: Int, count: Int) async -> (rate: Double, senderCPU: Double, receiverCPU: Double) {
        let (sender, receiver) = seqpacketPair()
        defer {
            close(sender)
            close(receiver)
        }
        let start = monotonicNanoseconds()
        var sending: CPUTimedThread?
        let receiverCPU = Atomic<UInt64>(0)
        let done = await withCheckedContinuation { (continuation: CheckedContinuation<UInt64, Never>) in
            Threads.start(name: "bench-receiver") {
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 16)
                defer { buffer.deallocate() }
                var received = 0
                var cpuAtFirst: UInt64 = 0
                while received < count {
                    guard recv(receiver, buffer.baseAddress, 1024, 0) > 0 else { continue }
                    received += 1
                    if received == 1 { cpuAtFirst = clockNanoseconds(CLOCK_THREAD_CPUTIME_ID) }
                }
                receiverCPU.store(clockNanoseconds(CLOCK_THREAD_CPUTIME_ID) &- cpuAtFirst, ordering: .relaxed)
                continuation.resume(returning: monotonicNanoseconds())
            }
            sending = CPUTimedThread(name: "bare-sender") {
                sendBare(count: count, size: size, to: sender, opcode: 0x1B)
            }
        }
        let senderCPU = Double(sending!.cpu()) / Double(count)
        let receiving = Double(receiverCPU.load(ordering: .relaxed)) / Double(max(1, count - 1))
        return (Double(count) / (Double(done - start) / 1e9), senderCPU, receiving)
    }

    /// `count` sends of one ready-made `size`-byte message starting with `opcode` (the bare loops'
    /// sender, and `ReceivePathPair`'s: a Handle Value Notification of TX).
    static func sendBare(count: Int, size: Int, to socket: Int32, opcode: UInt8, handle: UInt16 = 0x1B1B) {
        let message = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        message.initializeMemory(as: UInt8.self, repeating: 0x1B)
        defer { message.deallocate() }
        message[0] = opcode
        message[1] = UInt8(truncatingIfNeeded: handle)
        message[2] = UInt8(truncatingIfNeeded: handle >> 8)
        for _ in 0..<count { _ = send(socket, message.baseAddress, size, Int32(MSG_NOSIGNAL)) }
    }

    /// Notifications per second, server thread → bearer → client → callback, with `size`-byte values;
    /// the heap allocations the whole run made per notification (both sides, every thread); and the
    /// server thread's CPU nanoseconds per notification.
    static func notificationRate(
        _ link: StackBenchPair,
        size: Int,
        count: Int
    ) async -> (rate: Double, allocations: Double, senderCPU: Double) {
        let server = link.server
        let handle = link.notifyHandle
        AllocationCount.start()
        let start = monotonicNanoseconds()
        var sending: CPUTimedThread?
        await link.probe.run(expecting: count) {
            sending = CPUTimedThread(name: "stack-sender") {
                let value = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
                value.initializeMemory(as: UInt8.self, repeating: 0x42)
                defer { value.deallocate() }
                for _ in 0..<count { _ = try? server.notify(handle, value: UnsafeRawBufferPointer(value)) }
            }
        }
        let elapsed = monotonicNanoseconds() - start
        let senderCPU = Double(sending!.cpu()) / Double(count)
        let allocations = AllocationCount.stop()
        return (Double(count) / (Double(elapsed) / 1e9), Double(allocations) / Double(count), senderCPU)
    }

    /// Notify → callback latency, one notification at a time: the server thread stamps the value,
    /// notifies, and waits for the callback before the next.
    static func notificationLatency(_ link: StackBenchPair, count: Int) async -> Histogram<UInt64> {
        let server = link.server
        let handle = link.notifyHandle
        let probe = link.probe
        probe.latencyMode.store(true, ordering: .sequentiallyConsistent)
        await probe.run(expecting: count) {
            Threads.start(name: "bench-notifier") {
                var value = [UInt8](repeating: 0, count: 20)
                for index in 0..<count {
                    value.withUnsafeMutableBytes { bytes in
                        bytes.storeBytes(of: monotonicNanoseconds(), toByteOffset: 0, as: UInt64.self)
                        bytes.storeBytes(of: UInt64(index), toByteOffset: 8, as: UInt64.self)
                        _ = try? server.notify(handle, value: UnsafeRawBufferPointer(bytes))
                    }
                    while probe.count.load(ordering: .acquiring) <= index { sched_yield() }
                }
            }
        }
        probe.latencyMode.store(false, ordering: .sequentiallyConsistent)
        return probe.latencyHistogram(0..<count)
    }

    /// Send → `recv` latency over a bare `SOCK_SEQPACKET` socketpair, one 23-byte message at a time, timed
    /// as `notificationLatency` times the stack: the floor for the stack's latency on this machine (a
    /// thread blocked in `recv` woken by the send). The first `warmUp` messages go through the same
    /// threads and socket untimed, as the stack's link has carried traffic before it is timed.
    static func bareLatency(count: Int, warmUp: Int = 2_000) async -> Histogram<UInt64> {
        let (sender, receiver) = seqpacketPair()
        defer {
            close(sender)
            close(receiver)
        }
        let total = warmUp + count
        // The probe's buffer and count, written by the receiving thread only.
        let probe = StackProbe(capacity: total)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Threads.start(name: "bench-receiver") {
                var message = [UInt8](repeating: 0, count: 1024)
                for index in 0..<total {
                    let length = message.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, 1024, 0) }
                    guard length >= 8 else { break }
                    let sent = message.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    probe.latencies[index] = monotonicNanoseconds() &- sent
                    probe.count.store(index + 1, ordering: .releasing)
                }
                continuation.resume()
            }
            Threads.start(name: "bench-sender") {
                var value = [UInt8](repeating: 0, count: 23)
                for index in 0..<total {
                    value.withUnsafeMutableBytes { bytes in
                        bytes.storeBytes(of: monotonicNanoseconds(), toByteOffset: 0, as: UInt64.self)
                        _ = send(sender, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                    }
                    while probe.count.load(ordering: .acquiring) <= index { sched_yield() }
                }
            }
        }
        return probe.latencyHistogram(warmUp..<total)
    }

    /// Write commands per second from a client thread to the server's write handler.
    static func writeCommandRate(_ link: StackBenchPair, size: Int, count: Int) async -> Double {
        let client = link.client
        let handle = link.sinkHandle
        let start = monotonicNanoseconds()
        await link.sink.run(expecting: count) {
            Threads.start(name: "bench-sender") {
                let value = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
                value.initializeMemory(as: UInt8.self, repeating: 0x24)
                defer { value.deallocate() }
                for _ in 0..<count { try? client.sendWriteCommand(UnsafeRawBufferPointer(value), to: handle) }
            }
        }
        return Double(count) / (Double(monotonicNanoseconds() - start) / 1e9)
    }

    /// Read Request → Read Response round trips per second (async API, one request in flight).
    static func roundTripRate(_ link: StackBenchPair, count: Int) async throws -> Double {
        let start = monotonicNanoseconds()
        for _ in 0..<count { _ = try await link.client.read(link.readHandle) }
        return Double(count) / (Double(monotonicNanoseconds() - start) / 1e9)
    }
}
