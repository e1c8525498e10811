import BLEHost
import Dispatch
import Synchronization

/// What the reader thread reports: bytes and the time of the last value (atomics, no allocation), and
/// why the link closed.
final class SerialActivity: Sendable {
    private let bytes = Atomic<Int>(0)
    private let last = Atomic<UInt64>(0)
    private let reason = Mutex<GATTError?>(nil)

    func received(_ count: Int) {
        bytes.add(count, ordering: .relaxed)
        last.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    var byteCount: Int { bytes.load(ordering: .relaxed) }
    var lastReceived: UInt64 { last.load(ordering: .relaxed) }
    var closeReason: GATTError? { reason.withLock { $0 } }

    func close(_ why: GATTError) { reason.withLock { $0 = $0 ?? why } }
}
