import BLEDiagnostics
import BLEHost
import BLELinux
import BLETesting
import BLEWire
import Coordination
import Foundation
import Glibc
import Synchronization

/// `Bench echo`: the client's CPU per write → notify round trip, the way `hcipico rtt` makes them
/// (`GATTEchoProbe` on the reader thread), against a bare client (`send`, then `recv`) over the same
/// kind of socketpair, both facing the same bare echo peer thread. Only the client's thread is counted
/// (its `CLOCK_THREAD_CPUTIME_ID`), as `make bench-kernel` counts only `hcipico`'s.
enum EchoBench {
    static let suite = BenchSuite(name: "echo", summary: "CPU per write → notify round trip against a bare client") {
        json in try await run(json: json)
    }

    static let payload = 10

    static func run(json: Bool) async throws {
        let roundTrips = BenchOptions.echoRoundTrips
        let rounds = BenchOptions.echoRounds
        let pair = try await EchoBenchPair.make()
        _ = BareEcho.run(count: 2_000, payload: payload)
        _ = try await pair.measure(count: 2_000, payload: payload)
        var ratios: [Double] = []
        var stack: [Double] = []
        var bare: [Double] = []
        for round in 0..<rounds {
            var pairCPU = 0.0
            var bareCPU = 0.0
            for step in 0..<2 {
                if (round + step) % 2 == 0 {
                    bareCPU = BareEcho.run(count: roundTrips, payload: payload)
                } else {
                    pairCPU = try await pair.measure(count: roundTrips, payload: payload)
                }
            }
            stack.append(pairCPU)
            bare.append(bareCPU)
            ratios.append(pairCPU / bareCPU)
        }
        pair.close()
        let rows = [
            StackBench.Row(
                name: "bare client thread",
                value: StackBench.median(bare),
                unit: "ns/rt",
                note: "send, recv"
            ),
            StackBench.Row(
                name: "GATTEchoProbe, client reader thread",
                value: StackBench.median(stack),
                unit: "ns/rt",
                note: "as hcipico rtt"
            ),
            StackBench.Row(
                name: "CPU per round trip / bare",
                value: StackBench.median(ratios),
                unit: "×",
                note: "median of \(rounds) rounds, quartiles \(StackBench.quartiles(ratios))"
            ),
        ]
        print(
            json
                ? StackBench.renderJSON(rows, suite: "echo")
                : StackBench.renderTable(rows, title: "echo: \(payload)-byte write → notify round trips, client CPU")
        )
    }
}

/// The echoing peer both clients face: a bare thread on its end of a `SOCK_SEQPACKET` socketpair that
/// answers just enough ATT for a subscription (Exchange MTU, Find Information with the TX CCCD, Write
/// Response) and echoes every Write Command as a notification on TX, as the test peer's echo mode does.
enum BareEchoPeer {
    static let txValue: UInt16 = 0x0011
    static let txCCCD: UInt16 = 0x0012
    static let rxValue: UInt16 = 0x0014
    /// TX as a client that skipped discovery knows it.
    static let tx = GATTCharacteristic(
        uuid: BluetoothUUID.lairdVSPTx,
        declarationHandle: txValue - 1,
        valueHandle: txValue,
        properties: .notify,
        endHandle: txCCCD
    )

    static func serve(_ fd: Int32) {
        Threads.start(name: "bench-echo") {
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let length = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 512, 0) }
                if length <= 0 { break }
                var reply: [UInt8]
                switch buffer[0] {
                case 0x52:  // Write Command → Handle Value Notification of the same value on TX
                    buffer[0] = 0x1B
                    buffer[1] = UInt8(txValue & 0xFF)
                    buffer[2] = UInt8(txValue >> 8)
                    _ = buffer.withUnsafeBytes { send(fd, $0.baseAddress, length, Int32(MSG_NOSIGNAL)) }
                    continue
                case 0x02:  // Exchange MTU → 247, the most a notification of 244 bytes needs
                    reply = [0x03, 0xF7, 0x00]
                case 0x04:  // Find Information → the CCCD, 16-bit format
                    reply = [0x05, 0x01, UInt8(txCCCD & 0xFF), UInt8(txCCCD >> 8), 0x02, 0x29]
                case 0x12:  // Write Request (the CCCD) → Write Response
                    reply = [0x13]
                default:  // Error Response: Request Not Supported
                    reply = [0x01, buffer[0], buffer[1], buffer[2], 0x06]
                }
                _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            close(fd)
        }
    }
}

/// The bare client: sends a Write Command PDU and waits in `recv` for its echo, as `att_rtt.c` does.
enum BareEcho {
    /// The client thread's CPU nanoseconds per round trip.
    static func run(count: Int, payload: Int) -> Double {
        let (client, peer) = seqpacketPair()
        BareEchoPeer.serve(peer)
        defer { close(client) }
        let thread = CPUTimedThread(name: "bare-echo") {
            var write = [UInt8](repeating: 0x41, count: 3 + payload)
            write[0] = 0x52
            write[1] = UInt8(BareEchoPeer.rxValue & 0xFF)
            var buffer = [UInt8](repeating: 0, count: 512)
            for index in 0..<count {
                write[3] = UInt8(truncatingIfNeeded: index)
                _ = write.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                let length = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, 512, 0) }
                precondition(length == write.count && buffer[3] == write[3], "the echo thread answered wrong")
            }
            shutdown(client, Int32(SHUT_RDWR))
        }
        return Double(thread.cpu()) / Double(count)
    }
}

/// `hcipico rtt`'s client (a `GATTClient` on the production transport, `GATTEchoProbe`) against the bare
/// echo peer.
struct EchoBenchPair {
    let client: GATTClient

    static func make() async throws -> EchoBenchPair {
        let (clientEnd, peer) = seqpacketPair()
        BareEchoPeer.serve(peer)
        let transport = try UnixSocketATTTransport.adopting(clientEnd, name: "att-echo-client")
        // ATT_MTU 23 (no exchange): the 10-byte payload fits.
        return EchoBenchPair(client: try await GATTClient.connect(transport: transport, mtu: 23))
    }

    /// `count` round trips through a fresh probe; the client reader thread's CPU ns per round trip.
    func measure(count: Int, payload: Int) async throws -> Double {
        let marks = Mutex<(Double, Double)>((0, 0))
        // Warm-up round trips put the first timed write, like the others, on the reader thread.
        let probe = try GATTEchoProbe(
            client: client,
            writeHandle: BareEchoPeer.rxValue,
            payloadSize: payload,
            count: count,
            warmup: 10,
            boundaries: { begin in
                let now = Double(clockNanoseconds(CLOCK_THREAD_CPUTIME_ID))
                marks.withLock { if begin { $0.0 = now } else { $0.1 = now } }
            }
        )
        let subscription = try await client.subscribe(to: BareEchoPeer.tx, kind: .notifications) { probe.receive($0) }
        _ = try await probe.run()
        try await client.unsubscribe(subscription)
        let (before, after) = marks.withLock { $0 }
        return (after - before) / Double(count)
    }

    func close() { client.bearer.close() }
}
