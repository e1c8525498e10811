import CoreMetrics
import Foundation
import Prometheus
import RigCore
import RigJournal
import Synchronization

/// The rig's Prometheus metrics, through swift-metrics on a registry of the rig's own (not the
/// process-wide bootstrap, so an embedding program keeps its own metrics system).
///
/// Device counters follow the supervisors' counts, brought up to date at every scrape (and each
/// second by the status stream); the journal's commit latency is observed at every commit.
public final class RigMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let sources: StatusSources
    private let commitTimer: CoreMetrics.Timer
    private let state = Mutex(Counted())

    /// What each device's counters have been told so far (counters only go up by the difference).
    private struct Counted {
        var devices: [String: DeviceCounts] = [:]
        var committedPackages = 0
        var forwardedPackages = 0
        var forwardErrors = 0
    }

    private struct DeviceCounts {
        var complete = 0
        var incomplete = 0
        var packages = 0
        var samples = 0
        var notifications = 0
        var reconnects = 0
        var overflowed = 0
    }

    public init(sources: StatusSources) {
        self.sources = sources
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
            .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1),
            .seconds(2), .seconds(5),
        ]
        self.factory = factory
        commitTimer = CoreMetrics.Timer(label: "hcipico_journal_commit_duration_seconds", factory: factory)
        let timer = commitTimer
        sources.writer.onCommit { commit in timer.recordSeconds(commit.duration) }
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
        state.withLock { counted in
            for device in devices { update(device, counted: &counted.devices[device.name, default: DeviceCounts()]) }
            increment("hcipico_journal_packages_committed_total", [], by: committed - counted.committedPackages)
            counted.committedPackages = max(counted.committedPackages, committed)
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
        if let rssi = device.lastRSSI { gauge("hcipico_device_rssi_dbm", label, Double(rssi)) }
        if let interval = device.link.flatMap(LinkText.intervalSeconds) {
            gauge("hcipico_device_connection_interval_seconds", label, interval)
        }
    }

    private func increment(_ name: String, _ labels: [(String, String)], by amount: Int) {
        let counter = Counter(label: name, dimensions: labels, factory: factory)
        if amount > 0 { counter.increment(by: amount) }
    }

    private func gauge(_ name: String, _ labels: [(String, String)], _ value: Double) {
        Gauge(label: name, dimensions: labels, factory: factory).record(value)
    }
}
