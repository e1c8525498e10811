import Coordination
import Foundation

/// The simulated HM-10's serial side: the bounded receive FIFO that host writes fill, and a thread that
/// drains it through the looped-back UART (at `uartBytesPerSecond`, if set) and hands what comes back
/// to `output` in values of at most 20 bytes.
///
/// State sits behind one `NSCondition`: writers wait on it for space (acknowledged writes only), the
/// drain thread for bytes.
final class HM10UART: @unchecked Sendable {
    private let condition = NSCondition()
    private var fifo: VSPReceiveBuffer
    private var counters = HM10Statistics()
    /// Bytes the drain thread has taken from the FIFO so far.
    private var forwarded = 0
    private var stopped = false
    private var started = false
    private var sink: (@Sendable (UnsafeRawBufferPointer) -> Bool)?
    private let bytesPerSecond: Int?

    init(configuration: HM10Configuration) {
        fifo = VSPReceiveBuffer(capacity: configuration.receiveCapacity)
        bytesPerSecond = configuration.uartBytesPerSecond
    }

    /// Where echoed bytes go (a notification); returns false when the link is gone.
    var output: (@Sendable (UnsafeRawBufferPointer) -> Bool)? {
        get { condition.withLock { sink } }
        set { condition.withLock { sink = newValue } }
    }

    var statistics: HM10Statistics { condition.withLock { counters } }

    func start() {
        let first = condition.withLock {
            defer { started = true }
            return !started && !stopped
        }
        guard first else { return }
        Threads.start(name: "sim-hm10-uart") { [self] in drain() }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    /// A host write (reader thread). A write command keeps what fits and drops the rest; an
    /// acknowledged write waits until all of it has gone through the FIFO to the UART (the module delays
    /// its response until then), so after the response the FIFO holds nothing written before it.
    func received(_ bytes: UnsafeRawBufferPointer, acknowledged: Bool) {
        condition.withLock {
            if acknowledged { counters.writeRequests += 1 } else { counters.writeCommands += 1 }
            counters.largestWrite = max(counters.largestWrite, bytes.count)
            var offset = 0
            while offset < bytes.count, !stopped {
                // An acknowledged write offers only what fits (the rest waits); a command offers all.
                let end = acknowledged ? min(bytes.count, offset + fifo.capacity - fifo.count) : bytes.count
                let accepted = fifo.write(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                offset += accepted
                counters.receivedBytes += accepted
                if accepted > 0 { condition.broadcast() }
                guard acknowledged else { break }
                if offset < bytes.count { condition.wait() }
            }
            if acknowledged {
                let target = counters.receivedBytes
                while forwarded < target, !stopped { condition.wait() }
            }
            counters.droppedBytes = fifo.droppedByteCount
        }
    }

    private func drain() {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(HM10Configuration.maximumValue)
        while true {
            let output: (@Sendable (UnsafeRawBufferPointer) -> Bool)? = condition.withLock {
                while fifo.isEmpty && !stopped { condition.wait() }
                guard !stopped else { return nil }
                chunk.removeAll(keepingCapacity: true)
                forwarded += fifo.read(into: &chunk, maximum: HM10Configuration.maximumValue)
                condition.broadcast()
                return sink
            }
            guard let output else { return }
            if let bytesPerSecond {
                Thread.sleep(forTimeInterval: Double(chunk.count) / Double(bytesPerSecond))
            }
            let sent = chunk.withUnsafeBytes { output($0) }
            condition.withLock {
                if sent {
                    counters.notifiedBytes += chunk.count
                    counters.notifications += 1
                }
            }
        }
    }
}
