import BLEHost
import BLELinux
import BLETesting
import BLEWire
import Glibc
import Histogram
import Synchronization

/// Monotonic nanoseconds (no allocation).
func monotonicNanoseconds() -> UInt64 { clockNanoseconds(CLOCK_MONOTONIC) }

/// `clock`'s reading in nanoseconds (`CLOCK_MONOTONIC`, `CLOCK_THREAD_CPUTIME_ID`…; no allocation).
func clockNanoseconds(_ clock: clockid_t) -> UInt64 {
    var now = timespec()
    clock_gettime(clock, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// A blocking `SOCK_SEQPACKET` socketpair for the bare loops the suites compare against.
func seqpacketPair() -> (Int32, Int32) {
    var pair: [Int32] = [-1, -1]
    let status = pair.withUnsafeMutableBufferPointer {
        socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, $0.baseAddress)
    }
    precondition(status == 0, "socketpair failed: \(errno)")
    return (pair[0], pair[1])
}

/// What the client's notification callback does in a benchmark: count, and in latency mode record
/// how long each notification took from the timestamp the server put in it. No allocation.
/// Unchecked: `latencies` is written only by the one reader thread, at distinct indices, and read
/// after the run that filled it has completed (the continuation orders the two).
final class StackProbe: @unchecked Sendable {
    let count = Atomic<Int>(0)
    let target = Atomic<Int>(Int.max)
    let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)
    /// Latency mode: nanoseconds per notification, indexed by the sequence number in the value.
    let latencies: UnsafeMutableBufferPointer<UInt64>
    let latencyMode = Atomic<Bool>(false)
    /// The reader thread's CPU time at the first and at the last value of a run.
    let cpuAtFirst = Atomic<UInt64>(0)
    let cpuAtLast = Atomic<UInt64>(0)

    init(capacity: Int) {
        latencies = .allocate(capacity: capacity)
        latencies.initialize(repeating: 0)
    }

    deinit { latencies.deallocate() }

    /// Called on the reader thread for every value.
    func received(_ value: UnsafeRawBufferPointer) {
        if latencyMode.load(ordering: .relaxed), value.count >= 16 {
            let sent = value.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
            let index = Int(value.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            if index < latencies.count { latencies[index] = monotonicNanoseconds() &- sent }
        }
        let seen = count.add(1, ordering: .acquiringAndReleasing).newValue
        if seen == 1 { cpuAtFirst.store(clockNanoseconds(CLOCK_THREAD_CPUTIME_ID), ordering: .relaxed) }
        if seen == target.load(ordering: .relaxed) {
            cpuAtLast.store(clockNanoseconds(CLOCK_THREAD_CPUTIME_ID), ordering: .relaxed)
            waiter.withLock { $0 }?.resume()
        }
    }

    /// The latencies recorded at `indices`, as a histogram (a latency of 0 ns counts as 1).
    func latencyHistogram(_ indices: Range<Int>) -> Histogram<UInt64> {
        var histogram = Histogram<UInt64>(numberOfSignificantValueDigits: .three)
        for latency in latencies[indices] { _ = histogram.record(max(1, latency)) }
        return histogram
    }

    /// The reader thread's CPU nanoseconds per value between the first and the last of the run that has
    /// just ended (`total` values).
    func cpuPerValue(total: Int) -> Double {
        let spent = cpuAtLast.load(ordering: .relaxed) &- cpuAtFirst.load(ordering: .relaxed)
        return Double(spent) / Double(max(1, total - 1))
    }

    /// Resets the count and waits (asynchronously) until `total` values have arrived after `start` ran.
    func run(expecting total: Int, _ start: () -> Void) async {
        count.store(0, ordering: .sequentiallyConsistent)
        target.store(total, ordering: .sequentiallyConsistent)
        await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            start()
        }
        waiter.withLock { $0 = nil }
        target.store(Int.max, ordering: .sequentiallyConsistent)
    }
}

/// A GATT client and server over the in-memory socketpair at ATT_MTU 247, with a notify
/// characteristic, a write-without-response sink and a readable value.
struct StackBenchPair {
    let client: GATTClient
    let server: GATTServer
    let notifyHandle: UInt16
    let sinkHandle: UInt16
    let readHandle: UInt16
    let probe: StackProbe
    let sink: StackProbe

    /// `reads`: how both ends' readers wait (`.blocking` is what the simulator and the kernel path use).
    static func make(capacity: Int, reads: DescriptorChannel.ReadMode = .blocking) async throws -> StackBenchPair {
        // The production transport (what the simulator and rigs without a radio run on), not the tests'
        // fault-injecting wrapper around it.
        let (clientEnd, serverEnd) = try UnixSocketATTTransport.makePair(maximumPDULength: 1024, reads: reads)
        let probe = StackProbe(capacity: capacity)
        let sink = StackProbe(capacity: 0)
        let database = GATTDatabase()
        let service = database.addService(
            GATTServiceDefinition(
                uuid: BluetoothUUID.lairdVSPService,
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID.lairdVSPTx, properties: .notify),
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID.lairdVSPRx,
                        properties: .writeWithoutResponse,
                        maximumLength: 244,
                        storesWrites: false,
                        onWrite: { write in
                            sink.received(write.value)
                            return nil
                        }
                    ),
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID.lairdVSPModemOut,
                        properties: .read,
                        value: Array(repeating: 0x5A, count: 20)
                    ),
                ]
            )
        )
        let serverBearer = ATTBearer(transport: serverEnd)
        let server = GATTServer(database: database, bearer: serverBearer)
        try serverBearer.start()
        let client = try await GATTClient.connect(transport: clientEnd, mtu: 247)
        let characteristic = try await client.discoverCharacteristics(
            of: try await client.discoverPrimaryServices(uuid: BluetoothUUID.lairdVSPService)[0],
            uuid: BluetoothUUID.lairdVSPTx
        )[0]
        _ = try await client.subscribe(to: characteristic) { value in probe.received(value) }
        return StackBenchPair(
            client: client,
            server: server,
            notifyHandle: service.valueHandle(of: BluetoothUUID.lairdVSPTx)!,
            sinkHandle: service.valueHandle(of: BluetoothUUID.lairdVSPRx)!,
            readHandle: service.valueHandle(of: BluetoothUUID.lairdVSPModemOut)!,
            probe: probe,
            sink: sink
        )
    }
}
