import Foundation
import Prometheus
import RigJournal
import RigModel
import Synchronization

/// The rig's Prometheus metrics, on a registry of the rig's own (not a process-wide bootstrap, so an
/// embedding program keeps its own metrics system), each with its `# HELP` line (`help`).
///
/// Device counters follow the supervisors' counts, brought up to date at every scrape (and each
/// second by the status stream); the journal's commit latency is observed at every commit.
public final class RigMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let sources: StatusSources
    private let state = Mutex(Counted())

    /// Every metric's `# HELP` text, by name.
    public static let help: [String: String] = [
        "hcipico_device_connected": "1 while the device's link is up, else 0.",
        "hcipico_device_state": "1 for the state the device's supervisor is in, 0 for the others.",
        "hcipico_device_runs_total": "Runs ended, by result (complete or incomplete), since the rig started.",
        "hcipico_device_packages_total": "Data packages committed to the journal, since the rig started.",
        "hcipico_device_samples_total": "Values in those packages.",
        "hcipico_device_notifications_total": "GATT notifications received from the device.",
        "hcipico_device_reconnects_total": "Times the device's link was made again after it was lost.",
        "hcipico_device_packages_overflowed_total": "Packages lost because the rig fell behind (the run says so).",
        "hcipico_device_runs_cell_unknown_total":
            "Runs (and scripts found running at connect) after which the cell could not be confirmed off.",
        "hcipico_device_rssi_dbm": "The link's RSSI at the start of the last run, in dBm.",
        "hcipico_device_connection_interval_seconds": "The link's connection interval, in seconds.",
        "hcipico_journal_commit_duration_seconds": "How long each journal commit took (fsync included).",
        "hcipico_journal_size_bytes": "The journal's size on disk (database and write-ahead log).",
        "hcipico_journal_packages_committed_total": "Packages this process committed to the journal.",
        "hcipico_forward_packages_total": "Packages forwarded to PostgreSQL.",
        "hcipico_forward_lag_packages": "Committed packages not yet forwarded to PostgreSQL.",
        "hcipico_forward_lag_seconds": "Age of the oldest committed package not yet forwarded, in seconds.",
        "hcipico_forward_errors_total": "Failed attempts to forward to PostgreSQL (the log and the page say why).",
        "hcipico_log_lines_dropped_total":
            "Log lines dropped because the log output would not take them (closed, full or not read).",
    ].merging(AnalysisGauges.help) { first, _ in first }

    /// What each device's counters have been told so far (counters only go up by the difference).
    private struct Counted {
        var devices: [String: DeviceCounts] = [:]
        var committedPackages = 0
        var forwardedPackages = 0
        var forwardErrors = 0
        var droppedLogLines = 0
        /// The analysis gauges set so far, by device: one no longer in the latest analysis reads NaN.
        var analysisGauges: [String: Set<[AnalysisGauges.Label]>] = [:]
        /// The run each device's analysis gauges are from.
        var analysedRun: [String: Int64] = [:]
    }

    private struct DeviceCounts {
        var complete = 0
        var incomplete = 0
        var packages = 0
        var samples = 0
        var notifications = 0
        var reconnects = 0
        var overflowed = 0
        var cellUnknown = 0
    }

    public init(sources: StatusSources) {
        self.sources = sources
        let histogram = registry.makeDurationHistogram(
            descriptor: Self.descriptor("hcipico_journal_commit_duration_seconds"),
            buckets: [
                .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
                .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1),
                .seconds(2), .seconds(5),
            ]
        )
        sources.writer.onCommit { commit in
            histogram.recordNanoseconds(Int64((commit.duration * 1e9).rounded()))
        }
    }

    /// The metrics in Prometheus' text format, brought up to date first.
    public func exposition() -> String {
        update()
        return registry.emitToString()
    }

    /// Brings every counter and gauge up to date with the rig's state.
    func update() {
        let devices = sources.devices()
        let forward = sources.forward()
        let committed = sources.writer.committedPackages
        let dropped = sources.droppedLogLines()
        state.withLock { counted in
            for device in devices { update(device, counted: &counted.devices[device.name, default: DeviceCounts()]) }
            increment("hcipico_journal_packages_committed_total", [], by: committed - counted.committedPackages)
            counted.committedPackages = max(counted.committedPackages, committed)
            increment("hcipico_log_lines_dropped_total", [], by: dropped - counted.droppedLogLines)
            counted.droppedLogLines = max(counted.droppedLogLines, dropped)
            if let forward {
                increment(
                    "hcipico_forward_packages_total",
                    [],
                    by: forward.forwardedPackages - counted.forwardedPackages
                )
                increment("hcipico_forward_errors_total", [], by: forward.errors - counted.forwardErrors)
                counted.forwardedPackages = max(counted.forwardedPackages, forward.forwardedPackages)
                counted.forwardErrors = max(counted.forwardErrors, forward.errors)
                gauge("hcipico_forward_lag_packages", [], Double(forward.lagPackages))
                gauge("hcipico_forward_lag_seconds", [], forward.lagSeconds)
            }
        }
        gauge("hcipico_journal_size_bytes", [], Double(sources.journal.sizeInBytes))
        for device in devices { updateAnalysis(of: device.name) }
    }

    /// The gauges of the device's latest analysed run, read from the journal when it is a new one; the
    /// earlier run's gauges that the new one has not are set to NaN (no peak where there was one).
    private func updateAnalysis(of device: String) {
        guard let (run, stored) = try? sources.journal.latestAnalyses(device: device, limit: 1).last,
            let results = stored.results
        else { return }
        state.withLock { counted in
            guard counted.analysedRun[device] != run.id else { return }
            counted.analysedRun[device] = run.id
            let gauges = AnalysisGauges.of(device: device, run: run.deviceRun, analysis: results)
            let keys = Set(gauges.map { [AnalysisGauges.Label(name: "", value: $0.name)] + $0.labels })
            for stale in counted.analysisGauges[device, default: []].subtracting(keys) {
                gauge(stale[0].value, stale.dropFirst().map { ($0.name, $0.value) }, .nan)
            }
            counted.analysisGauges[device] = keys
            for item in gauges { gauge(item.name, item.labels.map { ($0.name, $0.value) }, item.value) }
        }
    }

    private func update(_ device: DeviceSnapshot, counted: inout DeviceCounts) {
        let label = [("device", device.name)]
        gauge("hcipico_device_connected", label, device.connected ? 1 : 0)
        let current = StatusDocument.stateName(device.state)
        for name in StatusDocument.stateNames {
            gauge("hcipico_device_state", label + [("state", name)], name == current ? 1 : 0)
        }
        func count(_ name: String, _ extra: [(String, String)], _ value: Int, _ told: inout Int) {
            increment(name, label + extra, by: value - told)
            told = max(told, value)
        }
        count("hcipico_device_runs_total", [("result", "complete")], device.completeRuns, &counted.complete)
        count("hcipico_device_runs_total", [("result", "incomplete")], device.incompleteRuns, &counted.incomplete)
        count("hcipico_device_packages_total", [], device.packages, &counted.packages)
        count("hcipico_device_samples_total", [], device.samples, &counted.samples)
        count("hcipico_device_notifications_total", [], device.notifications, &counted.notifications)
        count("hcipico_device_reconnects_total", [], device.reconnects, &counted.reconnects)
        count("hcipico_device_packages_overflowed_total", [], device.overflowed, &counted.overflowed)
        count("hcipico_device_runs_cell_unknown_total", [], device.cellUnknown, &counted.cellUnknown)
        if let rssi = device.lastRSSI { gauge("hcipico_device_rssi_dbm", label, Double(rssi)) }
        if let interval = device.link.flatMap(LinkText.intervalSeconds) {
            gauge("hcipico_device_connection_interval_seconds", label, interval)
        }
    }

    private func increment(_ name: String, _ labels: [(String, String)], by amount: Int) {
        let counter = registry.makeCounter(descriptor: Self.descriptor(name), labels: labels)
        if amount > 0 { counter.increment(by: Int64(amount)) }
    }

    private func gauge(_ name: String, _ labels: [(String, String)], _ value: Double) {
        registry.makeGauge(descriptor: Self.descriptor(name), labels: labels).set(value)
    }

    /// The metric's name with its `# HELP` text.
    static func descriptor(_ name: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help[name] ?? "")
    }
}
