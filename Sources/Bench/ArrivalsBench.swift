import BLEDiagnostics
import BLEHost
import Foundation

/// `Bench arrivals`: what `--stats` costs on the hot path. Notifications through the in-memory stack
/// (the `stack` suite's link) with and without the inter-arrival histogram recording, interleaved, in
/// one run: the rate ratio and the heap allocations per notification of each.
enum ArrivalsBench {
    static let suite = BenchSuite(
        name: "arrivals",
        summary: "notification rate and allocations with --stats' inter-arrival recording on vs off"
    ) { json in
        try await run(json: json)
    }

    static let notifications = 300_000
    static let repeats = 5

    static func run(json: Bool) async throws {
        let link = try await StackBenchPair.make(capacity: 16)
        let arrivals = NotificationArrivals()
        var rows: [StackBench.Row] = []
        _ = await StackMeasures.notificationRate(link, size: 20, count: 20_000)
        var off: [Double] = []
        var on: [Double] = []
        var allocationsOff = 0.0
        var allocationsOn = 0.0
        for _ in 0..<repeats {
            link.client.observeNotifications(nil)
            let plain = await StackMeasures.notificationRate(link, size: 20, count: notifications)
            off.append(plain.rate)
            allocationsOff += plain.allocations * Double(notifications)
            link.client.observeNotifications(arrivals)
            let recorded = await StackMeasures.notificationRate(link, size: 20, count: notifications)
            on.append(recorded.rate)
            allocationsOn += recorded.allocations * Double(notifications)
        }
        link.client.observeNotifications(nil)
        let total = Double(repeats * notifications)
        let rateOff = StackBench.median(off)
        let rateOn = StackBench.median(on)
        rows.append(StackBench.Row(name: "notifications, recording off", value: rateOff, unit: "ntf/s", note: "median"))
        rows.append(StackBench.Row(name: "notifications, recording on", value: rateOn, unit: "ntf/s", note: "median"))
        rows.append(
            StackBench.Row(
                name: "rate on / off",
                value: rateOn / rateOff * 100,
                unit: "%",
                note: "same run, interleaved"
            )
        )
        rows.append(
            StackBench.Row(
                name: "allocations per notification, off",
                value: allocationsOff / total,
                unit: "alloc",
                note: "\(Int(allocationsOff)) in \(Int(total)) notifications, all threads"
            )
        )
        rows.append(
            StackBench.Row(
                name: "allocations per notification, on",
                value: allocationsOn / total,
                unit: "alloc",
                note: "target 0; \(Int(allocationsOn)) in \(Int(total)) notifications, all threads"
            )
        )
        if let summary = arrivals.summary {
            rows.append(
                StackBench.Row(
                    name: "inter-arrival p50 / p99",
                    value: summary.p50.inMicroseconds,
                    unit: "µs",
                    note: "p99 \(StackBench.format(summary.p99.inMicroseconds)) µs; \(summary.arrivals) arrivals"
                )
            )
        }
        link.client.bearer.close()
        let rendered = json ? StackBench.renderJSON(rows) : StackBench.renderTable(rows)
        print(
            rendered
                .replacingOccurrences(of: "\"suite\":\"stack\"", with: "\"suite\":\"arrivals\"")
                .replacingOccurrences(of: "stack: ATT bearer", with: "arrivals (--stats recording): ATT bearer")
        )
    }
}
