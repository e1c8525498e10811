import Foundation
import RigJournal
import RigModel

/// The JSON of `/api/status` and of the event stream's `status` events.
struct StatusDocument: Encodable {
    struct JournalPart: Encodable {
        var sizeBytes: Int
        var committedPackages: Int
        var stalledSeconds: Double
        var failed: String?
    }

    struct ForwarderPart: Encodable {
        var enabled: Bool
        var target: String?
        var state: String?
        var lagPackages: Int?
        var lagSeconds: Double?
        var forwardedPackages: Int?
        var errors: Int?
        var lastError: String?
    }

    struct RunPart: Encodable {
        var id: Int64?
        var uuid: String
        var deviceRun: Int
        var title: String
        var startedAt: Double
        var packages: Int
        var progress: Double?
    }

    struct DevicePart: Encodable {
        var name: String
        var state: String
        var stateText: String
        var connected: Bool
        var run: RunPart?
        var runs: Int
        var completeRuns: Int
        var incompleteRuns: Int
        var packages: Int
        var samples: Int
        var notifications: Int
        var overflowed: Int
        var reconnects: Int
        var lastError: String?
        var lastCell: String?
        var cellUnknown: Int
        var link: String?
        var rssi: Int?
        var firmware: String?
        /// The journal id of the device's latest run with analysis results (the page fetches its trend
        /// when this changes).
        var analysedRun: Int64?
    }

    var rig: String
    var time: Double
    var version: String
    var journal: JournalPart
    var forwarder: ForwarderPart
    var devices: [DevicePart]

    init(_ sources: StatusSources, runIDs: (String) -> Int64?) {
        rig = sources.rig
        time = Date().timeIntervalSince1970
        version = sources.version
        journal = JournalPart(
            sizeBytes: sources.journal.sizeInBytes,
            committedPackages: sources.writer.committedPackages,
            stalledSeconds: sources.writer.stalledFor,
            failed: sources.writer.failed.map { "\($0)" }
        )
        if let forward = sources.forward() {
            forwarder = ForwarderPart(
                enabled: true,
                target: forward.target,
                state: forward.state,
                lagPackages: forward.lagPackages,
                lagSeconds: forward.lagSeconds,
                forwardedPackages: forward.forwardedPackages,
                errors: forward.errors,
                lastError: forward.lastError
            )
        } else {
            forwarder = ForwarderPart(enabled: false)
        }
        devices = sources.devices().map { snapshot in
            DevicePart(
                name: snapshot.name,
                state: Self.stateName(snapshot.state),
                stateText: snapshot.state.description,
                connected: snapshot.connected,
                run: snapshot.currentRun.map { run in
                    RunPart(
                        id: runIDs(run.uuid),
                        uuid: run.uuid,
                        deviceRun: run.deviceRun,
                        title: run.title,
                        startedAt: run.startedAt,
                        packages: run.packages,
                        progress: run.progress
                    )
                },
                runs: snapshot.runs,
                completeRuns: snapshot.completeRuns,
                incompleteRuns: snapshot.incompleteRuns,
                packages: snapshot.packages,
                samples: snapshot.samples,
                notifications: snapshot.notifications,
                overflowed: snapshot.overflowed,
                reconnects: snapshot.reconnects,
                lastError: snapshot.lastError,
                lastCell: snapshot.lastCell,
                cellUnknown: snapshot.cellUnknown,
                link: snapshot.link,
                rssi: snapshot.lastRSSI,
                firmware: snapshot.firmware,
                analysedRun: try? sources.journal.latestAnalysedRun(device: snapshot.name)
            )
        }
    }

    /// The states the page and the metrics name.
    static let stateNames = ["starting", "connecting", "away", "idle", "running", "stopping", "finished"]

    static func stateName(_ state: DeviceSnapshot.State) -> String {
        switch state {
        case .starting: "starting"
        case .connecting: "connecting"
        case .waitingToRetry: "away"
        case .idle: "idle"
        case .running: "running"
        case .stopping: "stopping"
        case .finished: "finished"
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity",
            negativeInfinity: "-Infinity",
            nan: "NaN"
        )
        return encoder
    }()
}

/// One run of `/api/runs`.
struct RunDocument: Encodable {
    var id: Int64
    var uuid: String
    var device: String
    var deviceRun: Int
    var title: String
    var state: String
    var reason: String?
    var cell: String?
    var foundAtConnect: String?
    var startedAt: Double
    var endedAt: Double?
    var packages: Int
    var overflowed: Int
    var pruned: Bool

    init(_ run: RunSummary) {
        id = run.id
        uuid = run.uuid
        device = run.device
        deviceRun = run.deviceRun
        title = run.title
        state = run.state
        reason = run.reason
        cell = run.cell
        foundAtConnect = run.foundAtConnect
        startedAt = run.startedAt
        endedAt = run.endedAt
        packages = run.packages
        overflowed = run.overflowed
        pruned = run.prunedAt != nil
    }
}
