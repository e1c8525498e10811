import BLEHost
import BLETesting
import Foundation
import PicoLink
import PicoSimulator

/// `Bench sync`: what durability costs. The e2e pipeline (simulated Pico on a virtual clock → GATT →
/// `PicoSession` → `RunRecorder`) into real files — a CSV and a JSON Lines sink in a temporary
/// directory, plus the sequence check — with the sync policy `end` (one `fdatasync` per run) and the
/// default `interval` (at most 1 s after a package), runs alternating A B A B in one process so that a
/// drift of the machine hits both alike. Reports samples/s of each, their ratio per pair and the median.
enum SyncCostBench {
    static let suite = BenchSuite(name: "sync", summary: "file sinks: default sync policy against sync at end") {
        json in
        try await run(json: json)
    }

    static func run(json: Bool) async throws {
        let pico = try await BenchPico.open()
        defer { pico.close() }
        let session = pico.session
        // 250 000 packages of (time, current) per run (250 s of 1 ms CA on the virtual clock): a few
        // seconds each, so the default policy syncs several times within a run.
        let packagesPerRun = 250_000
        let script = try BenchPico.chronoamperometry(seconds: 250)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var file = 0
        /// One run into fresh files; samples/s.
        func oneRun(_ policy: SyncPolicy) async throws -> Double {
            file += 1
            let check = SequenceCheckSink(interval: 1e-3)
            let sinks: [any SampleSink] = [
                try CSVSink(path: directory.appendingPathComponent("\(file).csv").path),
                try JSONLinesSink(path: directory.appendingPathComponent("\(file).jsonl").path), check,
            ]
            let start = ContinuousClock.now
            let end = try await RunRecorder(sinks: sinks, syncPolicy: policy).record(
                try await session.run(script, title: "bench", backlogLimit: packagesPerRun + 1)
            )
            let time = start.duration(to: .now)
            guard end.complete, end.packages == packagesPerRun, check.problems == 0 else {
                throw BenchFailure("sync: run ended \(end), \(check.problems) sequence problems")
            }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("\(file).csv"))
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("\(file).jsonl"))
            return Double(end.packages * 2) / time.inSeconds
        }
        _ = try await oneRun(.end)  // warm-up
        var pairs: [(end: Double, interval: Double)] = []
        for _ in 0..<5 {
            let atEnd = try await oneRun(.end)
            let interval = try await oneRun(.default)
            pairs.append((atEnd, interval))
        }
        let ratios = pairs.map { $0.interval / $0.end }.sorted()
        let median = ratios[2]
        let endMedian = pairs.map(\.end).sorted()[2]
        let intervalMedian = pairs.map(\.interval).sorted()[2]
        if json {
            print(
                "{\"suite\":\"sync\",\"end_samples_per_s\":\(Int(endMedian)),"
                    + "\"interval_samples_per_s\":\(Int(intervalMedian)),\"interval_over_end\":\(median)}"
            )
        } else {
            print("sync: e2e into a CSV and a JSON Lines file, 5 alternating pairs of \(packagesPerRun)-package runs")
            print("  sync at end:              \(Int(endMedian)) samples/s (median)")
            print("  sync every 1 s (default): \(Int(intervalMedian)) samples/s (median)")
            print(
                "  default / end per pair: \(ratios.map { String(format: "%.3f", $0) }.joined(separator: " ")); "
                    + "median \(String(format: "%.3f", median)) (cost \(String(format: "%.1f", (1 - median) * 100)) %)"
            )
        }
    }
}
