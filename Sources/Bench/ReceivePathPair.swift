import BLEHost
import BLELinux
import BLETesting
import Glibc

/// The receiving half of the stack alone: a `GATTClient` on the production transport, subscribed to
/// `BareEchoPeer`'s TX, and a bare sender thread that writes ready-made Handle Value Notification PDUs
/// into the peer's end, the `send` loop (`StackMeasures.sendBare`) that `StackMeasures.bareRecvRate` feeds
/// its bare `recv` loop with. Both sides of that comparison then pay the same sender, and the ratio is the client's.
struct ReceivePathPair {
    let client: GATTClient
    let sender: Int32
    let probe: StackProbe

    static func make() async throws -> ReceivePathPair {
        let (clientEnd, peer) = seqpacketPair()
        BareEchoPeer.serve(peer)
        let transport = try UnixSocketATTTransport.adopting(clientEnd, name: "att-receive-client")
        let client = try await GATTClient.connect(transport: transport, mtu: 247)
        let probe = StackProbe(capacity: 0)
        _ = try await client.subscribe(to: BareEchoPeer.tx, kind: .notifications) { probe.received($0) }
        return ReceivePathPair(client: client, sender: peer, probe: probe)
    }

    /// Notifications per second of `size`-byte values from the bare sender to the subscriber's callback,
    /// the bare sender thread's CPU nanoseconds per message, and the client's reader thread's CPU
    /// nanoseconds per notification.
    func rate(size: Int, count: Int) async -> (rate: Double, senderCPU: Double, receiverCPU: Double) {
        let sender = sender
        let start = monotonicNanoseconds()
        var sending: CPUTimedThread?
        await probe.run(expecting: count) {
            sending = CPUTimedThread(name: "bare-sender") {
                StackMeasures.sendBare(
                    count: count,
                    size: size + 3,
                    to: sender,
                    opcode: 0x1B,
                    handle: BareEchoPeer.txValue
                )
            }
        }
        let elapsed = monotonicNanoseconds() - start
        let senderCPU = Double(sending!.cpu()) / Double(count)
        return (Double(count) / (Double(elapsed) / 1e9), senderCPU, probe.cpuPerValue(total: count))
    }

    func close() { client.bearer.close() }
}
