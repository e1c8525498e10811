import Histogram

/// `Bench stack`: the ATT bearer, GATT client and GATT server over the in-memory socketpair, with the
/// server on its own thread, beside a bare `recv` loop over the same kind of socketpair.
let stackSuite = BenchSuite(name: "stack", summary: "ATT bearer + GATT client/server over a socketpair") { json in
    try await StackBench.run(json: json)
}

enum StackBench {
    /// Notifications per round of the throughput comparison, and rounds per size.
    static let perRound = 60_000
    static let rounds = 15
    static let latencySamples = 50_000
    static let writes = 300_000
    static let roundTrips = 30_000
    static let repeats = 3

    struct Row {
        let name: String
        let value: Double
        let unit: String
        let note: String
    }

    static func run(json: Bool) async throws {
        let link = try await StackBenchPair.make(capacity: latencySamples)
        // The same stack with readers that wait in epoll_wait (the `.polled` mode of HCI, TCP and tty
        // links), to show what the blocking reader of message sockets buys.
        let polled = try await StackBenchPair.make(capacity: 0, reads: .polled)
        // The client alone, fed by the bare loop's own sender: what the stack costs the receiving side.
        let receivingPair = try await ReceivePathPair.make()
        var rows: [Row] = []
        for size in [20, 244] {
            // Warm up, then `rounds` rounds of the bare loop, the stack and the epoll stack, the order
            // rotating from round to round. The cores are shared, so rates drift by tens of percent
            // within a minute: each ratio is taken within a round, and the median of those is reported.
            _ = await StackMeasures.bareRecvRate(size: size + 3, count: 20_000)
            _ = await StackMeasures.notificationRate(link, size: size, count: 20_000)
            _ = await StackMeasures.notificationRate(polled, size: size, count: 20_000)
            _ = await receivingPair.rate(size: size, count: 20_000)
            var bare: [Double] = []
            var stack: [Double] = []
            var ratios: [Double] = []
            var polledRatios: [Double] = []
            var receivingRatios: [Double] = []
            var senderCPURatios: [Double] = []
            var bareSenderCPURatios: [Double] = []
            var allocations: [Double] = []  // whole allocations per run
            var receiverCPU: [(bare: Double, client: Double)] = []
            for round in 0..<rounds {
                var rates: [Double] = [0, 0, 0, 0]
                var senderCPU: [Double] = [0, 0, 0]
                var receiving: (bare: Double, client: Double) = (0, 0)
                for step in 0..<4 {
                    switch (round + step) % 4 {
                    case 0:
                        (rates[0], senderCPU[0], receiving.bare) = await StackMeasures.bareRecvRate(
                            size: size + 3,
                            count: perRound
                        )
                    case 1:
                        let measured = await StackMeasures.notificationRate(link, size: size, count: perRound)
                        rates[1] = measured.rate
                        senderCPU[1] = measured.senderCPU
                        allocations.append(measured.allocations * Double(perRound))
                    case 2:
                        rates[2] = await StackMeasures.notificationRate(polled, size: size, count: perRound).rate
                    default:
                        (rates[3], senderCPU[2], receiving.client) = await receivingPair.rate(
                            size: size,
                            count: perRound
                        )
                    }
                }
                receiverCPU.append(receiving)
                bare.append(rates[0])
                stack.append(rates[1])
                ratios.append(rates[1] / rates[0] * 100)
                polledRatios.append(rates[2] / rates[0] * 100)
                receivingRatios.append(rates[3] / rates[0] * 100)
                senderCPURatios.append(senderCPU[1] / senderCPU[0])
                bareSenderCPURatios.append(senderCPU[2] / senderCPU[0])
            }
            let bareRate = median(bare)
            let stackRate = median(stack)
            rows.append(
                Row(name: "bare recv, \(size + 3)-byte messages", value: bareRate, unit: "msg/s", note: "ceiling")
            )
            rows.append(
                Row(
                    name: "notifications, \(size)-byte values",
                    value: stackRate,
                    unit: "ntf/s",
                    note: "target ≥ 300000"
                )
            )
            rows.append(
                Row(
                    name: "notifications / bare recv, \(size) B",
                    value: median(ratios),
                    unit: "%",
                    note: "target ≥ 90; median of \(rounds) rounds, quartiles \(quartiles(ratios))"
                )
            )
            rows.append(
                Row(
                    name: "  the same with epoll readers, \(size) B",
                    value: median(polledRatios),
                    unit: "%",
                    note: "the .polled mode, for comparison"
                )
            )
            rows.append(
                Row(
                    name: "  client alone, bare sender, \(size) B",
                    value: median(receivingRatios),
                    unit: "%",
                    note: "the receiving side's share; quartiles \(quartiles(receivingRatios))"
                )
            )
            rows.append(
                Row(
                    name: "  notifying thread CPU / bare sender's, \(size) B",
                    value: median(senderCPURatios),
                    unit: "×",
                    note: "per message; quartiles \(quartiles(senderCPURatios))"
                )
            )
            rows.append(
                Row(
                    name: "    bare sender's CPU, into the client / bare recv, \(size) B",
                    value: median(bareSenderCPURatios),
                    unit: "×",
                    note: "the same send loop, what the receiver costs it; quartiles \(quartiles(bareSenderCPURatios))"
                )
            )
            rows.append(
                Row(
                    name: "    receiving thread's CPU, client / bare recv, \(size) B",
                    value: median(receiverCPU.map { $0.client / $0.bare }),
                    unit: "×",
                    note: "per message: \(format(median(receiverCPU.map(\.client)))) against "
                        + "\(format(median(receiverCPU.map(\.bare)))) ns (medians); quartiles "
                        + quartiles(receiverCPU.map { $0.client / $0.bare })
                )
            )
            let total = allocations.reduce(0, +)
            rows.append(
                Row(
                    name: "heap allocations per notification, \(size) B",
                    value: total / Double(rounds * perRound),
                    unit: "alloc",
                    note: "target 0; \(Int(total)) in \(rounds * perRound) notifications, all threads"
                )
            )
        }
        // The stack's latency, and a bare send → recv's in the same run (the floor on this machine: both
        // wake a thread blocked in recv), in halves, interleaved.
        _ = await StackMeasures.notificationLatency(link, count: 2_000)
        _ = await StackMeasures.bareLatency(count: 2_000)
        var latency = Histogram<UInt64>(numberOfSignificantValueDigits: .three)
        var bareLatency = Histogram<UInt64>(numberOfSignificantValueDigits: .three)
        for _ in 0..<2 {
            latency.add(await StackMeasures.notificationLatency(link, count: latencySamples / 2))
            bareLatency.add(await StackMeasures.bareLatency(count: latencySamples / 2))
        }
        for (label, percentile) in [("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9)] {
            rows.append(
                Row(
                    name: "notify → callback latency \(label)",
                    value: Double(latency.valueAtPercentile(percentile)) / 1000,
                    unit: "µs",
                    note: label == "p99" ? "target ≤ 20; \(latencySamples) samples" : "\(latencySamples) samples"
                )
            )
            rows.append(
                Row(
                    name: "  bare send → recv latency \(label)",
                    value: Double(bareLatency.valueAtPercentile(percentile)) / 1000,
                    unit: "µs",
                    note: "the floor, same run"
                )
            )
        }
        for size in [20, 244] {
            _ = await StackMeasures.writeCommandRate(link, size: size, count: 20_000)
            var rates: [Double] = []
            for _ in 0..<repeats { rates.append(await StackMeasures.writeCommandRate(link, size: size, count: writes)) }
            rows.append(Row(name: "write commands, \(size)-byte values", value: median(rates), unit: "cmd/s", note: ""))
        }
        _ = try await StackMeasures.roundTripRate(link, count: 2_000)
        var trips: [Double] = []
        for _ in 0..<repeats { trips.append(try await StackMeasures.roundTripRate(link, count: roundTrips)) }
        rows.append(
            Row(name: "read request/response round trips", value: median(trips), unit: "rt/s", note: "async API")
        )
        link.client.bearer.close()
        polled.client.bearer.close()
        receivingPair.close()
        print(json ? renderJSON(rows) : renderTable(rows))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// The first and third quartiles of `values`, as "a–b".
    static func quartiles(_ values: [Double]) -> String {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return "–" }
        return "\(format(sorted[sorted.count / 4]))–\(format(sorted[sorted.count * 3 / 4]))"
    }

    static func format(_ value: Double) -> String {
        if value >= 1000 { return String(Int(value.rounded())) }
        if value > 0 && value < 0.01 { return "<0.01" }
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    static func renderTable(
        _ rows: [Row],
        title: String = "stack: ATT bearer + GATT client/server over a SOCK_SEQPACKET socketpair, ATT_MTU 247"
    ) -> String {
        let width = rows.map(\.name.count).max() ?? 0
        var lines = [title]
        for row in rows {
            let name = row.name + String(repeating: " ", count: width - row.name.count)
            let value = format(row.value)
            lines.append(
                "  \(name)  \(String(repeating: " ", count: max(0, 10 - value.count)))\(value) \(row.unit)  \(row.note)"
            )
        }
        return lines.joined(separator: "\n")
    }

    static func renderJSON(_ rows: [Row], suite: String = "stack") -> String {
        let entries = rows.map { row in
            "{\"name\":\"\(row.name)\",\"value\":\(row.value),\"unit\":\"\(row.unit)\",\"note\":\"\(row.note)\"}"
        }
        return "{\"suite\":\"\(suite)\",\"results\":[\(entries.joined(separator: ","))]}"
    }
}
