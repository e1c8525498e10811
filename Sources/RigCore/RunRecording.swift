import Coordination
import DeviceRuns
import Foundation
import Logging
import PicoLink
import RigModel
import RunResults

/// One run of a device, asked by its schedule or on demand (a `RunRequest`), from `runStarted` to
/// `runEnded` in the journal, the request following it there. Journal failures are thrown (they end the
/// rig); everything the device or the link does becomes the run's outcome.
struct RunRecording {
    let supervisor: DeviceSupervisor
    let opened: OpenedDevice
    /// The request the run is for, as it was taken from the queue.
    let request: RunRequest
    /// The config the run started with: a reload during the run applies from the next one.
    private let config: DeviceConfig
    /// The schedule's script, or the request's.
    private let script: PicoScript
    /// The journal's title and script name: the script file's, or the request's title and id.
    private let title: String
    private let scriptName: String

    init(supervisor: DeviceSupervisor, opened: OpenedDevice, request: RunRequest) throws(PicoScriptError) {
        self.supervisor = supervisor
        self.opened = opened
        self.request = request
        config = supervisor.config
        if request.isScheduled {
            script = config.script
            title = (config.scriptPath as NSString).lastPathComponent
            scriptName = config.scriptPath
        } else {
            script = try PicoScript(request.script.joined(separator: "\n"))
            title = request.title
            scriptName = "request \(request.id)"
        }
    }
    private var context: RigContext { supervisor.context }

    /// Thrown by the journal: ends the supervisor.
    struct JournalFailure: Error, CustomStringConvertible {
        let underlying: any Error
        var description: String { "\(underlying)" }
    }

    func run() async throws(JournalFailure) -> RunOutcome {
        let id = UUID()
        let start = context.clock.wallTime
        let session = opened.session
        let scriptText = script.lines.joined(separator: "\n")
        let rssi = await opened.link.readRSSI()
        if let rssi { supervisor.update { $0.lastRSSI = rssi } }
        let deviceRun: Int
        do {
            deviceRun = try await context.journal.nextRunNumber(device: config.name)
        } catch {
            throw JournalFailure(underlying: error)
        }
        let provenance = RunProvenance(
            runID: id,
            device: config.name,
            deviceRun: deviceRun,
            title: title,
            address: config.address,
            addressType: config.address == nil ? nil : config.addressType,
            transport: config.transport,
            firmware: opened.firmware,
            serialNumber: opened.serial,
            scriptName: scriptName,
            script: scriptText,
            scriptSHA256: Self.sha256(scriptText),
            link: opened.link.parameters,
            toolVersion: context.toolVersion,
            startTime: start,
            rssi: rssi,
            foundAtConnect: opened.foundAtConnect.take()?.description
        )
        try await journal { try await context.journal.runStarted(provenance) }
        if let started = supervisor.queue.started(request.id, runID: id.uuidString.lowercased(), deviceRun: deviceRun) {
            try await journal { try await context.journal.requestChanged(started) }
        }
        context.logger.info(
            "\(config.name): run \(deviceRun) started (\(provenance.title), id \(id.uuidString.lowercased()))",
            metadata: ["device": "\(config.name)"]
        )
        let expected = ScriptExtent.expectedPoints(script.lines)
        supervisor.update {
            $0.runs += 1
            $0.state = .running(run: provenance.deviceRun)
            $0.link = provenance.link
            $0.currentRun = DeviceSnapshot.CurrentRun(
                uuid: id.uuidString.lowercased(),
                deviceRun: provenance.deviceRun,
                title: provenance.title,
                startedAt: start,
                packages: 0,
                expectedPackages: expected
            )
        }
        supervisor.state.withLock { $0.runInProgress = true }
        defer { supervisor.state.withLock { $0.runInProgress = false } }
        let ending = try await stream(session: session, id: id)
        try await journal {
            try await context.journal.runEnded(
                id,
                complete: ending.reason == nil,
                reason: ending.reason,
                time: context.clock.wallTime,
                overflowed: ending.overflowed,
                cell: ending.cell?.description
            )
            let final: RunRequest.State = ending.reason == nil ? .complete : .incomplete
            if let ended = supervisor.queue.ended(request.id, state: final, reason: ending.reason) {
                try await context.journal.requestChanged(ended)
            }
            // The run is reported (and counted) once it is committed, never before.
            try await context.journal.flush()
        }
        supervisor.update {
            $0.currentRun = nil
            $0.link = opened.link.parameters
            if ending.reason == nil { $0.completeRuns += 1 } else { $0.incompleteRuns += 1 }
            $0.overflowed += ending.overflowed
            if let reason = ending.reason { $0.lastError = reason }
            if let cell = ending.cell {
                $0.lastCell = cell.description
                if cell.isUnknown { $0.cellUnknown += 1 }
            }
        }
        let name = config.name
        if let reason = ending.reason {
            let cell = ending.cell.map { "; \($0)" } ?? ""
            context.logger.warning(
                "\(name): run \(provenance.deviceRun) incomplete, \(ending.packages) packages committed: \(reason)\(cell)",
                metadata: ["device": "\(name)"]
            )
        } else {
            context.logger.info(
                "\(name): run \(provenance.deviceRun) complete, \(ending.packages) packages committed",
                metadata: ["device": "\(name)"]
            )
        }
        return ending.outcome
    }

    private struct Ending {
        var reason: String?
        var packages = 0
        var overflowed = 0
        var outcome = RunOutcome.complete
        var cell: CellOutcome?
    }

    /// Uploads the script and records its packages into the journal until the run ends, as `connect`
    /// and the console record theirs (`ControlledRecording`: every package checked against the run's
    /// limits, a run that did not end normally left safe, its reason worded alike), the run timeout
    /// beside it. A stop (the rig's, a reload's) and the timeout go through the run's control: `Z`, and
    /// the link closed when the device does not answer or does not end its script.
    private func stream(session: PicoSession, id: UUID) async throws(JournalFailure) -> Ending {
        let control = RunControl(session: session, limits: config.limits)
        var ending = Ending()
        let notificationsAtStart = session.notificationsReceived
        let notificationsBefore = supervisor.snapshot.notifications
        defer {
            let notifications = session.notificationsReceived - notificationsAtStart
            supervisor.update { $0.notifications = notificationsBefore + notifications }
        }
        supervisor.state.withLock { $0.control = control }
        defer {
            control.runEnded()
            supervisor.state.withLock { $0.control = nil }
        }
        // A stop that came before the control was in place: the run does not start, and the cell is
        // still made sure of (what became of it is recorded with the run).
        if let stop = supervisor.stopReason {
            ending.reason = stop
            ending.outcome = .failed
            ending.cell = await control.leaveSafe(scriptEnded: true)
            return ending
        }
        let run: PicoRun
        do throws(PicoSessionError) {
            run = try await session.run(script, title: scriptName)
        } catch {
            ending.reason = "the upload failed: \(error)"
            ending.outcome = Self.isLinkLoss(error) ? .linkLost : .failed
            ending.cell = await control.leaveSafe(scriptEnded: false)
            return ending
        }
        // The run timeout: a child task, cancelled when the recording returns.
        let limit = config.runTimeout
        async let _ = {
            guard let limit else { return }
            await control.stop(
                after: .seconds(limit),
                reason: "timed out after \(DurationText.text(limit))",
                clock: context.clock
            )
        }()
        let journal = JournalSink(journal: context.journal, run: id)
        let recording = ControlledRecording(
            control: control,
            script: script,
            sinks: [journal],
            analysis: nil,
            syncPolicy: .end
        )
        let end: RunEnd
        do {
            end = try await recording.record(run) { event in
                guard case .package(let package) = event else { return }
                let notifications = session.notificationsReceived - notificationsAtStart
                supervisor.update {
                    $0.packages += 1
                    $0.samples += package.values.count
                    $0.notifications = notificationsBefore + notifications
                    $0.currentRun?.packages += 1
                }
            }
        } catch {
            // The journal failed (the rig ends); the recording has left the instrument safe.
            throw JournalFailure(underlying: journal.failure ?? error)
        }
        ending.reason = end.reason
        ending.packages = end.packages
        ending.overflowed = run.events.overflowed
        ending.cell = end.cell
        ending.outcome = end.complete ? .complete : session.isConnected ? .failed : .linkLost
        return ending
    }

    private func journal(_ body: () async throws -> Void) async throws(JournalFailure) {
        do { try await body() } catch { throw JournalFailure(underlying: error) }
    }

    static func isLinkLoss(_ error: PicoSessionError) -> Bool {
        if case .connectionLost = error { return true }
        return false
    }

    /// Lowercase hex SHA-256 of the script as sent (its lines, without `e`).
    static func sha256(_ text: String) -> String { RunProvenance.scriptSHA256(of: text) }
}
