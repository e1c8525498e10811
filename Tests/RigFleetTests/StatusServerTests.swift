import Foundation
import Logging
import PicoAnalysis
import RigCore
import RigJournal
import RigModel
import RunResults
import Testing

@testable import RigStatus

/// The status server in process, over real HTTP on a loopback port, asked by curl.
@Suite struct StatusServerTests {
    /// The request (curl, waited for) runs on a thread of its own: a blocking wait on the cooperative
    /// pool could starve the server's own handlers, which run there too.
    static func get(_ port: Int, _ path: String, authorization: String? = nil) async throws -> CurlHTTP.Reply {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try CurlHTTP.get(
                            port: port,
                            path: path,
                            headers: authorization.map { ["Authorization": $0] } ?? [:]
                        )
                    }
                )
            }
        }
    }

    /// A journal with one complete run of 40 packages (and one empty run for each of `more`, a device
    /// name each), served with `token`; `body` gets the port.
    func serving(
        token: String?,
        more: [String] = [],
        stoppedRun: Bool = false,
        _ body: (Int, Journal) async throws -> Void
    ) async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let journal = try Journal.open(path: path, rig: "lab-1")
        let writer = journal.writer(commitInterval: 0.005)
        let run = FleetFixtures.provenance(device: "pico-a", start: 1_000)
        try await writer.runStarted(run)
        for index in 0..<40 {
            try await writer.record(FleetFixtures.package(index, device: "pico-a", start: 1_000), run: run.runID)
        }
        try await writer.runEnded(run.runID, JournalRunEnd(complete: true, reason: nil, time: 1_001))
        var numbers: [String: Int] = ["pico-a": 1]
        for (index, device) in more.enumerated() {
            numbers[device, default: 0] += 1
            let extra = FleetFixtures.provenance(device: device, run: numbers[device]!, start: 2_000 + Double(index))
            try await writer.runStarted(extra)
            try await writer.runEnded(
                extra.runID,
                JournalRunEnd(complete: true, reason: nil, time: 2_000 + Double(index))
            )
        }
        if stoppedRun {
            let stopped = FleetFixtures.provenance(device: "pico-a", run: 2, start: 3_000)
            try await writer.runStarted(stopped)
            try await writer.runEnded(
                stopped.runID,
                JournalRunEnd(
                    complete: false,
                    reason: "stopped",
                    time: 3_001,
                    cell: "cell off confirmed at 1970-01-01T00:50:01.000Z"
                )
            )
        }
        try await writer.flush()
        var snapshot = DeviceSnapshot(name: "pico-a")
        snapshot.state = .idle(nextRun: nil)
        snapshot.connected = true
        snapshot.runs = 1
        snapshot.completeRuns = 1
        snapshot.packages = 40
        snapshot.samples = 80
        snapshot.lastRSSI = -42
        snapshot.lastCell = "cell state unknown: the link was lost"
        snapshot.cellUnknown = 2
        snapshot.link = "interval 7.5 ms, latency 0, timeout 2000 ms"
        let devices = [snapshot]
        let sources = StatusSources(
            rig: "lab-1",
            version: "hcipico test",
            journal: journal,
            writer: writer,
            devices: { devices },
            droppedLogLines: { 7 }
        )
        let server = StatusServer(
            sources: sources,
            host: "127.0.0.1",
            port: 0,
            token: token,
            logger: Logger(label: "test")
        )
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = await server.boundPort()
        try await body(port, journal)
        task.cancel()
        _ = await task.result
        await writer.close()
    }

    /// `/api/runs` pages back through the history (`before`) and filters by device, newest first.
    @Test func theRunsListPagesBackAndFiltersByDevice() async throws {
        let more = (0..<6).map { $0 % 2 == 0 ? "pico-b" : "pico-c" }
        try await serving(token: nil, more: more) { port, _ in
            func list(_ query: String) async throws -> [(id: Int, device: String)] {
                let body = try await Self.get(port, "/api/runs?" + query).body
                let runs = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]])
                return runs.map { ($0["id"] as? Int ?? 0, $0["device"] as? String ?? "") }
            }
            #expect(try await list("limit=3").map(\.id) == [7, 6, 5])
            #expect(try await list("limit=3&before=5").map(\.id) == [4, 3, 2])
            #expect(try await list("limit=3&before=2").map(\.id) == [1])
            let b = try await list("device=pico-b")
            #expect(b.map(\.id) == [6, 4, 2] && b.allSatisfy { $0.device == "pico-b" })
            #expect(try await list("device=pico-b&device=pico-a&before=4").map(\.id) == [2, 1])
        }
    }

    @Test func withoutATokenEverythingIsServed() async throws {
        try await serving(token: nil, stoppedRun: true) { port, _ in
            let page = try await Self.get(port, "/")
            #expect(
                page.status == 200 && page.body.contains("<html")
                    && page.headers["content-type"]?.hasPrefix("text/html") == true
            )
            #expect(try await Self.get(port, "/assets/app.js").status == 200)
            #expect(try await Self.get(port, "/healthz").body == "ok\n")
            let status = try await Self.get(port, "/api/status")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(status.body.utf8)) as? [String: Any])
            #expect(json["rig"] as? String == "lab-1")
            let devices = try #require(json["devices"] as? [[String: Any]])
            #expect(devices.first?["state"] as? String == "idle" && devices.first?["rssi"] as? Int == -42)
            #expect(devices.first?["last_cell"] as? String == "cell state unknown: the link was lost")
            #expect(devices.first?["cell_unknown"] as? Int == 2)
            let runs = try await Self.get(port, "/api/runs?limit=5")
            #expect(runs.body.contains("\"packages\":40") && runs.body.contains("\"state\":\"complete\""))
            #expect(runs.body.contains("\"cell\":\"cell off confirmed at 1970-01-01T00:50:01.000Z\""), "\(runs.body)")
            let csv = try await Self.get(port, "/runs/1/csv")
            #expect(csv.status == 200 && csv.headers["content-disposition"]?.contains("pico-a-run1.csv") == true)
            #expect(csv.body.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 41)
            #expect(try await Self.get(port, "/runs/99/csv").status == 404)
        }
    }

    @Test func metricsFollowTheRigAndTheJournal() async throws {
        try await serving(token: nil) { port, _ in
            let metrics = try await Self.get(port, "/metrics").body
            #expect(metrics.contains("hcipico_device_packages_total{device=\"pico-a\"} 40"))
            #expect(metrics.contains("hcipico_device_samples_total{device=\"pico-a\"} 80"))
            #expect(metrics.contains("hcipico_device_rssi_dbm{device=\"pico-a\"} -42"))
            #expect(metrics.contains("hcipico_device_connection_interval_seconds{device=\"pico-a\"} 0.0075"))
            #expect(metrics.contains("hcipico_journal_packages_committed_total 40"))
            #expect(metrics.contains("hcipico_device_state{device=\"pico-a\",state=\"idle\"} 1"))
            #expect(metrics.contains("hcipico_journal_commit_duration_seconds_count"))
            #expect(metrics.contains("hcipico_log_lines_dropped_total 7"))
            #expect(metrics.contains("hcipico_device_runs_cell_unknown_total{device=\"pico-a\"} 2"))
            // Every metric says what it is.
            let names = Set(
                metrics.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
            )
            #expect(names.count >= 13)
            for name in names {
                let help = RigMetrics.help[String(name)]
                #expect(help != nil && metrics.contains("# HELP \(name) \(help ?? "")"), "\(name)")
            }
            // A second scrape does not count twice.
            let again = try await Self.get(port, "/metrics").body
            #expect(again.contains("hcipico_device_packages_total{device=\"pico-a\"} 40"))
            #expect(again.contains("hcipico_log_lines_dropped_total 7"))
        }
    }

    /// The latest analysed run's peaks and fit are gauges; a later run's analysis replaces them, and a
    /// peak the later run has not reads NaN instead of keeping the earlier value.
    @Test func metricsGiveTheLatestAnalysis() async throws {
        try await serving(token: nil, more: ["pico-a"]) { port, journal in
            let runs = try journal.runs(RunFilter(devices: ["pico-a"]))
            #expect(runs.count == 2)
            func peak(_ scan: Int, _ direction: VoltammetricPeak.Direction, _ potential: Double) -> VoltammetricPeak {
                VoltammetricPeak(
                    scan: scan,
                    sweep: 1,
                    direction: direction,
                    index: 3,
                    potential: potential,
                    current: 2e-6,
                    baselineCurrent: 1e-7,
                    height: 1.9e-6,
                    prominence: 1.9e-6,
                    width: 0.1,
                    area: 1e-7,
                    charge: nil,
                    leftFoot: 0,
                    rightFoot: 0.5,
                    leftFootBaseline: 0,
                    rightFootBaseline: 2e-7
                )
            }
            let first = RunAnalysis(
                run: 1,
                results: [
                    .peaks(current: "c", [peak(1, .anodic, 0.2), peak(1, .anodic, 0.3), peak(2, .cathodic, 0.1)])
                ]
            )
            try journal.record(StoredAnalysis(run: runs[0].id, kind: .peaks, analysedAt: 5, results: first))
            let metrics = try await Self.get(port, "/metrics").body
            #expect(metrics.contains("hcipico_analysis_run{device=\"pico-a\"} 1"), "\(metrics)")
            #expect(
                metrics.contains(
                    "hcipico_peak_potential_volts{device=\"pico-a\",curve=\"c\",scan=\"1\",direction=\"anodic\"} 0.2"
                ),
                "the first of two equally prominent peaks"
            )
            #expect(
                metrics.contains(
                    "hcipico_peak_height_amperes{device=\"pico-a\",curve=\"c\",scan=\"2\",direction=\"cathodic\"} 1.9e-06"
                )
            )
            let second = RunAnalysis(run: 2, results: [.peaks(current: "c", [peak(1, .anodic, 0.25)])])
            try journal.record(StoredAnalysis(run: runs[1].id, kind: .peaks, analysedAt: 6, results: second))
            let later = try await Self.get(port, "/metrics").body
            #expect(later.contains("hcipico_analysis_run{device=\"pico-a\"} 2"))
            #expect(
                later.contains(
                    "hcipico_peak_potential_volts{device=\"pico-a\",curve=\"c\",scan=\"1\",direction=\"anodic\"} 0.25"
                )
            )
            #expect(
                later.contains(
                    "hcipico_peak_potential_volts{device=\"pico-a\",curve=\"c\",scan=\"2\",direction=\"cathodic\"} nan"
                ),
                "\(later)"
            )
        }
    }

    /// `/api/trend`: a device's analysed runs, oldest first, and a series per result they share (null
    /// where a run has none); `/api/status` names the latest analysed run.
    @Test func theTrendOfADevicesAnalysedRuns() async throws {
        try await serving(token: nil, more: ["pico-a"]) { port, journal in
            let runs = try journal.runs(RunFilter(devices: ["pico-a"]))
            let circuit = try EquivalentCircuit("R(RC)")
            let frequencies = (0..<20).map { pow(10, 5 - Double($0) / 4) }
            for (index, run) in runs.enumerated() {
                let values = [100.0, 1000 * Double(index + 1), 1e-6]
                let spectrum = ImpedanceSpectrum(
                    frequencies: frequencies,
                    impedances: frequencies.map { circuit.impedance(at: $0, values) }
                )
                let fit = try CircuitFitter.fit(circuit, to: spectrum)
                try journal.record(
                    StoredAnalysis(
                        run: run.id,
                        kind: .fit,
                        analysedAt: Double(index),
                        results: RunAnalysis(run: run.deviceRun, results: [.fit(fit)])
                    )
                )
            }
            let status = try await Self.get(port, "/api/status").body
            #expect(status.contains("\"analysed_run\":\(runs[1].id)"), "\(status)")
            let body = try await Self.get(port, "/api/trend?device=pico-a").body
            let trend = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            let listed = try #require(trend["runs"] as? [[String: Any]])
            #expect(listed.compactMap { $0["device_run"] as? Int } == [1, 2])
            let series = try #require(trend["series"] as? [[String: Any]])
            #expect(
                series.compactMap { $0["name"] as? String } == ["R1 (R(RC))", "R2 (R(RC))", "C1 (R(RC))", "χ² (R(RC))"]
            )
            let r2 = try #require(series[1]["values"] as? [Double])
            #expect(r2.count == 2 && abs(r2[0] - 1000) < 1e-6 && abs(r2[1] - 2000) < 1e-6, "\(r2)")
            #expect(try await Self.get(port, "/api/trend").status == 400)
        }
    }

    @Test func aTokenIsAskedOfEveryRequest() async throws {
        try await serving(token: "correct horse") { port, _ in
            for path in ["/", "/metrics", "/healthz", "/api/status", "/events", "/runs/1/csv"] {
                let refused = try await Self.get(port, path)
                #expect(refused.status == 401 && refused.body.isEmpty, "\(path)")
                #expect(refused.headers["www-authenticate"] == "Basic realm=\"hcipico\"")
                #expect(try await Self.get(port, path, authorization: "Bearer wrong").status == 401)
            }
            #expect(try await Self.get(port, "/metrics", authorization: "Bearer correct horse").status == 200)
            let basic = "Basic " + Data("anyone:correct horse".utf8).base64EncodedString()
            #expect(try await Self.get(port, "/api/status", authorization: basic).status == 200)
        }
    }

    @Test func theTokenCheckAcceptsOnlyTheToken() {
        let token = TokenMatcher(token: "t0k3n")
        #expect(token.accepts("Bearer t0k3n"))
        #expect(token.accepts("Basic " + Data("x:t0k3n".utf8).base64EncodedString()))
        #expect(!token.accepts("Bearer t0k3"))
        #expect(!token.accepts("Bearer t0k3n "))
        #expect(!token.accepts("Basic " + Data("t0k3n".utf8).base64EncodedString()))
        #expect(!token.accepts("Basic !!!"))
        #expect(!token.accepts("t0k3n"))
    }

    @Test func linkIntervals() {
        #expect(LinkText.intervalSeconds("interval 7.5 ms, latency 0, timeout 2000 ms") == 0.0075)
        #expect(LinkText.intervalSeconds("simulated, MTU 517") == nil)
        #expect(LinkText.intervalSeconds("low-latency being applied") == nil)
    }
}
