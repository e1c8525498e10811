import BLEHost
import Coordination
import Foundation
import Logging
import PicoLink
import RigModel
import Synchronization

/// Keeps one device of a rig measuring: a `DeviceKeeper` connects (exponential backoff with jitter,
/// forever, at a bounded interval) and reconnects after a lost link, as it does for `DeviceManager`;
/// on each connection the supervisor opens the session (firmware `t`, serial `i`), runs the script by
/// its schedule and what is asked (never two at once), records every package into the journal, and
/// closes each run as complete or incomplete with its reason.
///
/// `stop(reason:)` aborts a running script (`Z`), closes its run as incomplete with the reason, and
/// disconnects. A journal that fails ends the supervisor and is reported through `onFatal`.
public final class DeviceSupervisor: Sendable {
    let context: RigContext
    let state: Mutex<Inner>
    /// Connects, reconnects and backs off; its waits end early at a stop or a wake.
    let keeper: DeviceKeeper<OpenedDevice>

    struct Inner {
        /// The device's config; a reload may change any of it but the connection
        /// (`DeviceConfig.sameConnection`), which takes effect from the next run (a run reads it once,
        /// when it starts).
        var config: DeviceConfig
        /// A reload changed the schedule: the wait in progress ends and the next start is computed again.
        var rescheduled = false
        var snapshot: DeviceSnapshot
        var everConnected = false
        var lastStart: Double?
        var session: PicoSession?
        var runInProgress = false
        /// The control of the run in progress: how `stop` aborts it.
        var control: RunControl?
        /// `run` began (or a stop came first, and it never will).
        var started = false
    }

    /// Settled when the supervisor has ended.
    private let ended = Latch<Void>()

    /// Seconds a wake may come after its run's slot before that run counts as missed: a busy machine
    /// wakes a little late; a clock set forward past the slot, or a machine that slept, much later.
    static let missedSlot: Double = 300

    init(config: DeviceConfig, context: RigContext, queue: RunQueue) {
        self.context = context
        self.queue = queue
        keeper = DeviceKeeper(policy: context.backoff, clock: context.clock)
        state = Mutex(Inner(config: config, snapshot: DeviceSnapshot(name: config.name)))
    }

    /// The rig's run queue: this device's runs, asked on demand and by its schedule.
    let queue: RunQueue

    /// The device's config as it stands (a reload may have changed it since the supervisor started).
    public var config: DeviceConfig { state.withLock { $0.config } }

    /// Applies a config with the same connection as the current one (`DeviceConfig.sameConnection`:
    /// only the schedule, timeouts, failure policy or script differ): a run in progress goes on as it
    /// started; a wait in progress is computed again from the new schedule.
    func apply(_ config: DeviceConfig) {
        state.withLock { inner in
            inner.config = config
            inner.rescheduled = true
        }
        keeper.wake()
    }

    /// Whether a reload changed the schedule since the last call (and clears it).
    private func takeRescheduled() -> Bool {
        state.withLock { inner in
            defer { inner.rescheduled = false }
            return inner.rescheduled
        }
    }

    /// Where the device stands now.
    public var snapshot: DeviceSnapshot { state.withLock { $0.snapshot } }

    /// Supervises the device in the calling task (the rig's task group) until it is stopped, its
    /// schedule is done or the journal fails; once only (a supervisor stopped before it ran returns at
    /// once).
    func run() async {
        let first = state.withLock { inner in
            defer { inner.started = true }
            return !inner.started
        }
        guard first else { return }
        queue.onSubmit(device: config.name) { [weak self] in self?.wake() }
        await supervise()
        ended.settle(())
    }

    /// Stops: aborts a running script (its run is closed as incomplete with `reason`), disconnects,
    /// and returns when the supervisor has ended. With `abortingRun` false a run in progress is left to
    /// end by itself first (a reload that must reconnect the device).
    func stop(reason: String, abortingRun: Bool = true) async {
        keeper.stop(reason: reason)
        let (started, control) = state.withLock { inner in
            if case .finished = inner.snapshot.state {
            } else if !inner.started {
                inner.snapshot.state = .finished(reason: reason)
            } else if abortingRun || !inner.runInProgress {
                inner.snapshot.state = .stopping
            }
            defer { inner.started = true }
            return (inner.started, abortingRun ? inner.control : nil)
        }
        if let control {
            await control.stop(reason)
            if control.closedTheLink {
                context.logger.warning(
                    "\(config.name): \(control.interruption.reason ?? reason)",
                    metadata: ["device": "\(config.name)"]
                )
            }
        }
        if started { await ended.wait() } else { ended.settle(()) }
    }

    var stopReason: String? { keeper.stopReason }

    func update(_ change: (inout DeviceSnapshot) -> Void) {
        state.withLock { change(&$0.snapshot) }
    }

    /// Sleeps until the wall clock reads `deadline` (a schedule's slot) unless stopped or woken first
    /// (a lost link wakes an idle wait).
    func pause(until deadline: Double, endsOnEarlierWake: Bool = false) async {
        await keeper.pause(untilWallTime: deadline, endsOnEarlierWake: endsOnEarlierWake)
    }

    /// Sleeps for `deadline - now` of elapsed time (a backoff, an `every` schedule), whatever the wall
    /// clock does meanwhile, unless stopped or woken first.
    func pause(elapsedUntil deadline: Double, endsOnEarlierWake: Bool = false) async {
        await keeper.pause(for: .seconds(deadline - context.clock.wallTime), endsOnEarlierWake: endsOnEarlierWake)
    }

    /// Wakes a pause in progress, or the next one (the link went away while idle, a request came).
    func wake() { keeper.wake() }

    /// Ends `request` as cancelled with `reason`, in the queue and the journal; false when the journal
    /// failed (the rig then stops, as for a run).
    private func recordEnd(of request: RunRequest, reason: String) async -> Bool {
        guard let ended = queue.ended(request.id, state: .cancelled, reason: reason) else { return true }
        do {
            try await context.journal.requestChanged(ended)
            return true
        } catch {
            context.fatal(error)
            keeper.stop(reason: "journal failed: \(error)")
            return false
        }
    }

    /// Queues the schedule's run due at `slot`, to run in its turn.
    private func enqueueScheduledRun(slot: Double) {
        let config = config
        let request = RunRequest(
            id: UUID().uuidString.lowercased(),
            device: config.name,
            title: (config.scriptPath as NSString).lastPathComponent,
            script: config.script.lines,
            submittedAt: slot,
            submitter: RunRequest.scheduleSubmitter
        )
        _ = try? queue.submit(request)
    }

    /// Aborts the run in progress (`Z`, then the cell off, as a stop does) with `reason`; false when
    /// no run is in progress.
    func abortRun(reason: String) async -> Bool {
        let control = state.withLock { $0.control }
        guard let control else { return false }
        await control.stop(reason)
        return true
    }

    // MARK: The loop

    private func supervise() async {
        let end = await keeper.run(
            open: { [self] _ in try await open() },
            serve: { [self] opened in
                // The link's tuning runs beside the runs, and is cancelled as the connection ends.
                await withTaskGroup(of: Void.self) { group in
                    if let beside = opened.link.beside { group.addTask { await beside() } }
                    let end = await serve(opened)
                    group.cancelAll()
                    return end
                }
            },
            close: { [self] opened in
                state.withLock { $0.session = nil }
                opened.session.close()
                await opened.link.close()
                update { $0.connected = false }
            },
            onStatus: { [self] status in report(status) },
            retryFloor: { [self] failures in
                let config = config
                return failures >= config.maximumFailures ? config.failureBackoff : nil
            }
        )
        let reason = keeper.stopReason ?? end.reason
        update { $0.state = .finished(reason: reason) }
        context.logger.info("\(config.name): supervisor ended (\(reason))", metadata: ["device": "\(config.name)"])
    }

    /// Shows what the keeper does in the snapshot and the log.
    private func report(_ status: DeviceStatus) {
        switch status {
        case .connecting(let attempt):
            update { $0.state = .connecting(attempt: attempt) }
        case .waitingToReconnect(let attempt, let delay):
            let reason = keeper.lastFailure ?? "connection failed"
            let until = context.clock.wallTime + delay
            let failures = keeper.consecutiveFailures
            update {
                $0.state = .waitingToRetry(until: until, attempt: attempt, reason: reason)
                $0.lastError = reason
                $0.consecutiveFailures = failures
            }
            context.logger.warning(
                "\(config.name): \(reason); retrying in \(DurationText.approximate(delay))",
                metadata: ["device": "\(config.name)"]
            )
        case .disconnected(_?):
            context.logger.warning("\(config.name): link lost; reconnecting", metadata: ["device": "\(config.name)"])
        case .connected, .disconnected(nil), .running, .disconnecting:
            break
        }
    }

    /// Runs what is due on one connection until the link is lost, the schedule is done or the
    /// supervisor is stopped.
    private func serve(_ opened: OpenedDevice) async -> DeviceKeeper<OpenedDevice>.ServeEnd {
        let reconnected = state.withLock { inner in
            defer { inner.everConnected = true }
            return inner.everConnected
        }
        if reconnected { update { $0.reconnects += 1 } }
        context.logger.info(
            "\(config.name): connected (\(opened.firmware ?? "firmware unknown"), serial \(opened.serial ?? "unknown"))",
            metadata: ["device": "\(config.name)"]
        )
        let lost = Mutex<String?>(nil)
        opened.session.channel.onEnd { [self] reason in
            lost.withLock { $0 = reason }
            wake()
        }
        var linkLost: DeviceKeeper<OpenedDevice>.ServeEnd { .linkLost(lost.withLock { $0 } ?? "the link closed") }
        // The schedule's next slot, kept while requests run before it: a slot that comes while the
        // device is busy queues the scheduled run behind what runs (once, never stacked up).
        var upcoming: Double?
        var scheduleDone = false
        while stopReason == nil {
            keeper.clearWake()
            let paused = queue.isPaused(device: config.name)
            if takeRescheduled() || paused { upcoming = nil }
            if !paused, upcoming == nil, !scheduleDone {
                upcoming = config.schedule.nextStart(
                    after: lastStart,
                    now: context.clock.wallTime,
                    calendar: context.calendar
                )
                scheduleDone = upcoming == nil && !config.schedule.waitsForRequests
            }
            if let slot = upcoming, slot <= context.clock.wallTime, !queue.hasScheduled(device: config.name) {
                enqueueScheduledRun(slot: slot)
                upcoming = nil
            }
            if let request = queue.takeNext(device: config.name) {
                guard opened.session.isConnected else {
                    // It goes back to wait for the link (asked when it was, so it keeps its turn).
                    queue.requeue(request.id)
                    return linkLost
                }
                if request.isScheduled {
                    lastStart = context.clock.wallTime
                    scheduleDone = false
                }
                let recording: RunRecording
                do {
                    recording = try RunRecording(supervisor: self, opened: opened, request: request)
                } catch {
                    if !(await recordEnd(of: request, reason: "its script cannot be sent: \(error)")) {
                        return .finished("journal failed")
                    }
                    continue
                }
                let outcome: RunOutcome
                do {
                    outcome = try await recording.run()
                } catch {
                    context.fatal(error)
                    keeper.stop(reason: "journal failed: \(error)")
                    return .finished("journal failed: \(error)")
                }
                switch outcome {
                case .complete: keeper.resetFailures()
                case .failed: keeper.noteFailure()
                case .linkLost: break
                }
                let failures = keeper.consecutiveFailures
                update { $0.consecutiveFailures = failures }
                if case .linkLost = outcome { return linkLost }
                let current = config
                if failures >= current.maximumFailures {
                    // `config` takes the state's lock: read before `update` holds it.
                    let until = context.clock.wallTime + current.failureBackoff
                    update {
                        $0.state = .waitingToRetry(
                            until: until,
                            attempt: 1,
                            reason: "\(failures) failed runs in a row"
                        )
                    }
                    await pause(elapsedUntil: until)
                }
                continue
            }
            if scheduleDone { return .finished("schedule done") }
            // Nothing to run: wait for the slot, a request, a reload or a lost link.
            update { $0.state = .idle(nextRun: upcoming) }
            if let slot = upcoming {
                if config.schedule.followsWallClock {
                    await pause(until: slot, endsOnEarlierWake: true)
                } else {
                    await pause(elapsedUntil: slot, endsOnEarlierWake: true)
                }
            } else {
                await keeper.pauseUntilWoken()
            }
            if stopReason != nil { break }
            guard opened.session.isConnected else { return linkLost }
            let now = context.clock.wallTime
            if let slot = upcoming, config.schedule.followsWallClock, now - slot > Self.missedSlot,
                !queue.hasQueued(device: config.name)
            {
                // The clock was set forward past the slot, or the machine slept through it: that run
                // was missed, and the schedule picks the next from the time it is now.
                context.logger.warning(
                    "\(config.name): the run due \(DurationText.text((now - slot).rounded())) ago was missed (the clock was set forward, or the machine slept); the schedule picks the next",
                    metadata: ["device": "\(config.name)"]
                )
                upcoming = nil
            }
        }
        return .finished("stopped")
    }

    /// When the schedule's last run started (kept across reconnects: the schedule counts from it).
    private var lastStart: Double? {
        get { state.withLock { $0.lastStart } }
        set { state.withLock { $0.lastStart = newValue } }
    }

    /// Connects, opens the session and reads the firmware version and serial number.
    private func open() async throws -> OpenedDevice {
        let link = try await context.connector.connect(config)
        do {
            let session = try await link.openSession(name: config.name, clock: context.clock)
            let (version, leftover) = try await session.takeOver()
            if let leftover {
                context.logger.warning("\(config.name): \(leftover)", metadata: ["device": "\(config.name)"])
                update {
                    $0.lastCell = leftover.cell.description
                    if leftover.cell.isUnknown { $0.cellUnknown += 1 }
                }
            }
            let serial = try? await session.serialNumber()
            if let expected = config.serialNumber, serial != expected {
                throw RigConnector.Failure(
                    description:
                        "\(link.parameters ?? "the device") answers with serial \(serial ?? "unknown"), not \(expected): another Pico is there; not measuring it as \(config.name)"
                )
            }
            let opened = OpenedDevice(
                link: link,
                session: session,
                firmware: version.firmware,
                serial: serial,
                foundAtConnect: FoundAtConnect(leftover)
            )
            // A stop that came meanwhile: the keeper closes this connection as soon as it is returned.
            state.withLock { inner in
                inner.session = session
                inner.snapshot.connected = true
                inner.snapshot.firmware = opened.firmware
                inner.snapshot.serialNumber = serial
            }
            return opened
        } catch {
            link.endCarrier()
            await link.close()
            throw error
        }
    }
}

/// A connected device with its session open.
struct OpenedDevice: Sendable {
    let link: DeviceConnection
    let session: PicoSession
    let firmware: String?
    let serial: String?
    /// A script the device was still running when this connection was made; the first run on it records
    /// it (`takeFoundAtConnect()`).
    let foundAtConnect: FoundAtConnect
}

/// A script a connection found still running, handed to the first run on that connection.
final class FoundAtConnect: Sendable {
    private let value: Mutex<LeftoverScript?>

    init(_ leftover: LeftoverScript?) { value = Mutex(leftover) }

    /// What the connection found, once.
    func take() -> LeftoverScript? {
        value.withLock { found in
            defer { found = nil }
            return found
        }
    }
}

/// How one run went, as the supervisor counts failures.
enum RunOutcome {
    case complete
    /// Ended early on the device's side (error, timeout, overflow) with the link still up.
    case failed
    case linkLost
}
