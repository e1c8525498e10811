public import BLEHost
import Synchronization

/// Writes to the Laird VSP RX characteristic with writes without response, paced so that the BT900's
/// receive FIFO never overflows (it drops what does not fit).
///
/// The module's only backpressure is ModemOut: 0 once its FIFO fill reaches a threshold, 1 again once
/// it has drained. A notification of 0 can still be on its way while the host writes, so ModemOut alone
/// cannot protect the bytes sent meanwhile. The writer therefore bounds what is *unconfirmed*: at most
/// `headroom` bytes go out between two barriers, a barrier being a read of ModemOut. ATT handles the
/// read after every earlier write command and the module reports ModemOut 0 before it answers, so when
/// the read returns and ModemOut (as notified) is 1, the FIFO was below its threshold with at least
/// `headroom` bytes free; while it is 0 the writer waits for the notification of 1. Writes are
/// ATT_MTU − 3 bytes (or `headroom`, if smaller).
///
/// With `confirmFirst` (RX takes Write Requests too) the very first write is a Write Request: a module
/// that refuses the write (Insufficient Encryption, Write Not Permitted) says so at once, where a write
/// without response would be dropped in silence.
///
/// `headroom` must not exceed the FIFO's capacity minus its full threshold (the simulator's default
/// FIFO: 1024 − 768 = 256 bytes, also the default here).
public final class VSPWriter: Sendable {
    /// The default `headroom` in bytes: what the simulator's 1024-byte FIFO, full at 768, leaves.
    public static let defaultHeadroom = 256

    /// The client the writes and the ModemOut reads go through.
    public let client: GATTClient
    /// The value handle of the VSP RX characteristic (host → device).
    public let rxHandle: UInt16
    /// The value handle of ModemOut, read as the barrier.
    public let modemOutHandle: UInt16
    /// The most bytes sent unconfirmed between two barriers (at least 1).
    public let headroom: Int
    /// ModemOut as last notified.
    public let flow: GATTFlowControlPacing
    private let unconfirmed = Mutex(0)
    /// The next write goes as a Write Request (the first one, with `confirmFirst`).
    private let confirmNext: Mutex<Bool>
    /// Barriers (ModemOut reads) so far.
    private let barrierCount = Mutex(0)

    init(
        client: GATTClient,
        rxHandle: UInt16,
        modemOutHandle: UInt16,
        headroom: Int,
        clearToSend: Bool,
        confirmFirst: Bool = false
    ) {
        confirmNext = Mutex(confirmFirst)
        self.client = client
        self.rxHandle = rxHandle
        self.modemOutHandle = modemOutHandle
        self.headroom = max(1, headroom)
        flow = GATTFlowControlPacing(clearToSend: clearToSend)
    }

    /// ModemOut reads made so far to confirm writes.
    public var barriers: Int { barrierCount.withLock { $0 } }

    /// Sends `bytes` in order. One caller at a time.
    public func send(_ bytes: [UInt8]) async throws(GATTError) {
        var offset = 0
        while offset < bytes.count {
            let size = min(client.mtu - 3, SerialWriter.maximumValue, headroom, bytes.count - offset)
            if unconfirmed.withLock({ $0 }) + size > headroom {
                _ = try await client.read(modemOutHandle)
                barrierCount.withLock { $0 += 1 }
                unconfirmed.withLock { $0 = 0 }
            }
            let value = Array(bytes[offset..<(offset + size)])
            if confirmNext.withLock({ $0 }) {
                try await client.write(value, to: rxHandle)
                confirmNext.withLock { $0 = false }
            } else {
                try await client.writeWithoutResponse(value, to: rxHandle, pacing: flow)
                unconfirmed.withLock { $0 += size }
            }
            offset += size
        }
    }
}
