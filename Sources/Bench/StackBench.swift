import Histogram

/// `Bench stack`: the ATT bearer, GATT client and GATT server over the in-memory socketpair, with the
/// server on its own thread, beside a bare `recv` loop over the same kind of socketpair.
let stackSuite = BenchSuite(name: "stack", summary: "ATT bearer + GATT client/server over a socketpair") { json in
    try await StackBench.run(json: json)
}

enum StackBench {
    static let notifications = 300_000
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
        var rows: [Row] = []
        for size in [20, 244] {
            // Warm up, then take the median of `repeats` runs of each, interleaved.
            _ = await StackMeasures.bareRecvRate(size: size + 3, count: 20_000)
            _ = await StackMeasures.notificationRate(link, size: size, count: 20_000)
            _ = await StackMeasures.notificationRate(polled, size: size, count: 20_000)
            var bare: [Double] = []
            var stack: [Double] = []
            var polledStack: [Double] = []
            var allocations: [Double] = []  // whole allocations per run
            for _ in 0..<repeats {
                bare.append(await StackMeasures.bareRecvRate(size: size + 3, count: notifications))
                let measured = await StackMeasures.notificationRate(link, size: size, count: notifications)
                stack.append(measured.rate)
                allocations.append(measured.allocations * Double(notifications))
                polledStack.append(await StackMeasures.notificationRate(polled, size: size, count: notifications).rate)
            }
            let bareRate = median(bare)
            let stackRate = median(stack)
            let polledRate = median(polledStack)
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
                    value: stackRate / bareRate * 100,
                    unit: "%",
                    note: "target ≥ 90"
                )
            )
            rows.append(
                Row(
                    name: "  the same with epoll readers, \(size) B",
                    value: polledRate / bareRate * 100,
                    unit: "%",
                    note: "the .polled mode, for comparison"
                )
            )
            let total = allocations.reduce(0, +)
            rows.append(
                Row(
                    name: "heap allocations per notification, \(size) B",
                    value: total / Double(repeats * notifications),
                    unit: "alloc",
                    note: "target 0; \(Int(total)) in \(repeats * notifications) notifications, all threads"
                )
            )
        }
        _ = await StackMeasures.notificationLatency(link, count: 2_000)
        let latency = await StackMeasures.notificationLatency(link, count: latencySamples)
        for (label, percentile) in [("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9)] {
            rows.append(
                Row(
                    name: "notify → callback latency \(label)",
                    value: Double(latency.valueAtPercentile(percentile)) / 1000,
                    unit: "µs",
                    note: label == "p99" ? "target ≤ 20; \(latencySamples) samples" : "\(latencySamples) samples"
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
        print(json ? renderJSON(rows) : renderTable(rows))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
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
