import BLEHost
import BLELinux
import BLETesting
import BLEWire
import Foundation

extension H4Bench {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One peer; our host, then Bumble's host, against it.
    static func measure(script: String, anchor: String, aclLength: Int) async throws -> Result {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("bench-h4-peer-\(aclLength).log").path
        let peer = try await BumblePeer.start(
            script: script,
            arguments: ["--mode", "echo", "--le-acl-len", "\(aclLength)"],
            logPath: log
        )
        defer { peer.stop() }
        let ours = try await runOurs(peer)
        let theirs = try runAnchor(anchor, peer: peer)
        return Result(aclLength: aclLength, ours: ours, anchor: theirs)
    }

    static func runOurs(_ peer: BumblePeer) async throws -> Side {
        let transport = try H4StreamTransport.connectTCP(host: "127.0.0.1", port: peer.port)
        let host = HCIHost(transport: transport)
        try await host.start()
        guard let address = peer.peripherals.first else { throw Failure(description: "peer lists no peripheral") }
        let found = try await host.scan(timeout: .seconds(10)) { $0.address.value == address.value }
        let link = try await VSPLink.open(host: host, peer: found.address)
        link.countOnly()
        var received = 0
        var sides: [Latency] = []
        for withResponse in [false, true] {
            var samples: [Duration] = []
            samples.reserveCapacity(rounds)
            for index in 0..<rounds {
                let payload = Array((withResponse ? "write_req \(index)" : "write_cmd \(index)").utf8)
                let start = ContinuousClock.now
                if withResponse {
                    try await link.client.write(payload, to: link.rx)
                } else {
                    try await link.client.writeWithoutResponse(payload, to: link.rx.valueHandle)
                }
                received += 1
                guard await link.wait(forCount: received), link.lastValue == payload else {
                    throw Failure(description: "round \(index): no echo of \(payload.count) bytes")
                }
                samples.append(ContinuousClock.now - start)
            }
            sides.append(Latency(samples))
        }
        let peerBefore = processCPU(peer.processIdentifier)
        let ownBefore = ownCPU()
        AllocationCount.start()
        let start = ContinuousClock.now
        try await link.client.writeWithoutResponse(
            Array("blast \(blastCount) \(blastSize)".utf8),
            to: link.rx.valueHandle
        )
        received += blastCount
        guard await link.wait(forCount: received, timeout: .seconds(60)) else {
            throw Failure(
                description: "blast: \(link.notificationCount - received + blastCount) of \(blastCount) arrived"
            )
        }
        let elapsed = ContinuousClock.now - start
        let allocations = Double(AllocationCount.stop()) / Double(blastCount)
        let seconds = elapsed.inSeconds
        let last = link.lastValue
        guard last.count == blastSize,
            UInt32(last[0]) | UInt32(last[1]) << 8 | UInt32(last[2]) << 16 == UInt32(blastCount - 1)
        else {
            throw Failure(description: "blast: last notification is not number \(blastCount - 1) of \(blastSize) bytes")
        }
        let ownUsed = (ownCPU() - ownBefore) / seconds
        let peerUsed = processCPU(peer.processIdentifier).map { after in (after - (peerBefore ?? after)) / seconds }
        await host.shutdown()
        return Side(
            writeCommand: sides[0],
            writeRequest: sides[1],
            notificationsPerSecond: Double(blastCount) / seconds,
            ownCPU: ownUsed,
            peerCPU: peerUsed,
            allocationsPerNotification: allocations
        )
    }

    /// Runs `anchor.py --scenario echo` against the same peer and reads its JSON.
    static func runAnchor(_ anchor: String, peer: BumblePeer) throws -> Side {
        let data = try AnchorProcess.run(
            anchor,
            ["--port", "\(peer.port)", "--scenario", "echo", "--rounds", "\(rounds)", "--blast", "\(blastCount)"]
        )
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cmd = object["rtt_write_cmd"] as? [String: Any], let req = object["rtt_write_req"] as? [String: Any],
            let blast = object["blast"] as? [String: Any], let rate = blast["notifications_per_s"] as? Double
        else {
            throw Failure(
                description: "anchor.py gave no usable JSON: \(String(decoding: data, as: UTF8.self).prefix(300))"
            )
        }
        func latency(_ entry: [String: Any]) -> Latency {
            Latency(median: entry["median_ms"] as? Double ?? .nan, p99: entry["p99_ms"] as? Double ?? .nan)
        }
        // CPU during the anchor's blast alone cannot be separated from outside its process: not reported.
        return Side(
            writeCommand: latency(cmd),
            writeRequest: latency(req),
            notificationsPerSecond: rate,
            ownCPU: nil,
            peerCPU: nil,
            allocationsPerNotification: nil
        )
    }

    /// CPU seconds (user + system) of this process.
    static func ownCPU() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU seconds of another process, from /proc/PID/stat (utime + stime in clock ticks).
    static func processCPU(_ pid: Int32) -> Double? { APIBench.processCPU(pid)?.total }
}
