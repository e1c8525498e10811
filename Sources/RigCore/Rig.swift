public import Coordination
public import Foundation
public import Logging
public import PicoLink
public import RigModel
import Synchronization

/// Several instruments, each under its own `DeviceSupervisor`, recording into one journal.
///
/// `run()` runs the supervisors — and the reconnects reloads ask for — as child tasks of its own task
/// group, so the rig's work is structured: it returns once `stop` has stopped them all, or every one
/// has ended by itself.
///
/// ```swift
/// let rig = Rig(config: config, connector: connector, journal: journal, logger: logger, toolVersion: "…")
/// async let running: Void = rig.run()
/// …
/// await rig.stop(reason: "stopped")        // SIGTERM: abort, close runs as incomplete, disconnect
/// await running
/// ```
public final class Rig: Sendable {
    let context: RigContext
    let state: Mutex<Inner>
    /// Every device's runs, on demand and scheduled (see `RigControl`).
    let queue = RunQueue()

    private let failureText: FailureText

    struct Inner {
        var config: RigConfig
        var supervisors: [String: DeviceSupervisor] = [:]
        /// Set by `stop`: no supervisor starts after it.
        var stopping = false
        /// Reloads' reconnects under way (each waits for its device's run to end), by reload number;
        /// each removes itself when done.
        var reconnects: [Int: Latch<Void>] = [:]
        var reloads = 0
        /// `run` was called.
        var running = false
        /// Supervisors and reconnects handed to `run`'s group and not yet ended; at 0 the rig has ended
        /// and takes no more.
        var active = 0
        var ended = false
    }

    /// Work for `run`'s task group: a supervisor, a reload's reconnects.
    typealias Job = @Sendable () async -> Void
    private let jobs: AsyncStream<Job>
    private let jobsContinuation: AsyncStream<Job>.Continuation
    /// Settled when every supervisor and reconnect has ended.
    private let allEnded = Latch<Void>()

    /// The first fatal error, written from whichever supervisor's task hit it.
    final class FailureText: Sendable {
        let text = Mutex<String?>(nil)
    }

    public init(
        config: RigConfig,
        connector: any DeviceConnector,
        journal: any RunJournal,
        clock: any TimeSource = SystemClock(),
        calendar: Calendar = .current,
        logger: Logger,
        toolVersion: String,
        backoff: ReconnectPolicy = ReconnectPolicy(initialDelay: 1, multiplier: 2, maximumDelay: 60, jitter: 0.2),
        onFailure: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        state = Mutex(Inner(config: config))
        (jobs, jobsContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        let failureText = FailureText()
        self.failureText = failureText
        context = RigContext(
            connector: connector,
            journal: journal,
            clock: clock,
            calendar: calendar,
            logger: logger,
            toolVersion: toolVersion,
            backoff: backoff,
            fatal: { error in
                let first = failureText.text.withLock { text in
                    defer { text = text ?? "\(error)" }
                    return text == nil
                }
                guard first else { return }
                logger.critical("the journal failed: \(error); the rig stops")
                onFailure("\(error)")
            }
        )
        do {
            queue.restore(try journal.endedRequests(perDevice: RunQueue.keptEnded))
        } catch {
            logger.warning("the requests of earlier runs could not be read from the journal: \(error)")
        }
        // Each device's supervisor, ready for `run` (a reload before it runs finds them).
        for device in config.devices { add(device) }
    }

    /// Runs the supervisor of every device, and those reloads add, as child tasks; returns once `stop`
    /// has stopped them all or every one has ended by itself (all schedules done, or the journal
    /// failed). Once only.
    public func run() async {
        let (first, idle) = state.withLock { inner in
            defer { inner.running = true }
            return (!inner.running, inner.active == 0)
        }
        guard first else { return }
        if idle { endJobs() }
        await withDiscardingTaskGroup { group in
            for await job in jobs { group.addTask(operation: job) }
        }
    }

    /// Hands `job` to `run`'s group; false when the rig has ended and takes no more.
    @discardableResult
    private func spawn(_ job: @escaping Job) -> Bool {
        let accepted = state.withLock { inner -> Bool in
            guard !inner.ended else { return false }
            inner.active += 1
            return true
        }
        guard accepted else { return false }
        jobsContinuation.yield { [self] in
            await job()
            let last = state.withLock { inner -> Bool in
                inner.active -= 1
                return inner.active == 0
            }
            if last { endJobs() }
        }
        return true
    }

    /// No more work: `run`'s group ends with what it runs.
    private func endJobs() {
        state.withLock { $0.ended = true }
        jobsContinuation.finish()
        allEnded.settle(())
    }

    /// Every device's state, by name.
    public var snapshots: [DeviceSnapshot] {
        state.withLock { inner in inner.config.devices.compactMap { inner.supervisors[$0.name]?.snapshot } }
    }

    /// Why the rig must stop (the journal failed), once it must.
    public var failure: String? { failureText.text.withLock { $0 } }

    /// Applies a new config (SIGHUP) with the least disturbance: added devices start; removed ones
    /// stop after closing their run (aborted); a device whose schedule, timeouts, failure policy or
    /// script changed keeps its link and its run in progress, and measures by the new config from its
    /// next run; one whose connection changed (address, transport, link tuning, security) reconnects
    /// once its run in progress has ended by itself. What only a restart applies (the rig's name, its
    /// journal, `[status]`, `[forward]`) is left as it was and named in `RigReload.needsRestart`.
    ///
    /// Returns what it did once the in-place changes are applied and the reconnects are under way;
    /// `reconnected()` waits for those.
    public func reload(_ config: RigConfig) async -> RigReload {
        let (old, supervisors) = state.withLock { inner in
            let old = inner.config
            inner.config = config
            inner.config.name = old.name
            inner.config.journal = old.journal
            inner.config.status = old.status
            inner.config.forward = old.forward
            return (old, inner.supervisors)
        }
        var report = RigReload()
        if config.name != old.name { report.needsRestart.append("name") }
        if config.journal != old.journal { report.needsRestart.append("journal") }
        if config.status != old.status { report.needsRestart.append("[status]") }
        if config.forward != old.forward { report.needsRestart.append("[forward.postgres]") }
        let oldDevices = Dictionary(uniqueKeysWithValues: old.devices.map { ($0.name, $0) })
        let newNames = Set(config.devices.map(\.name))
        var reconnects: [(DeviceSupervisor, String)] = []
        for device in old.devices where !newNames.contains(device.name) {
            report.removed.append(device.name)
            await supervisors[device.name]?.stop(reason: "removed from the config")
            let cancelled = queue.cancelAll(device: device.name, reason: "its device was removed from the config")
            await recordCancelled(cancelled)
            state.withLock { _ = $0.supervisors.removeValue(forKey: device.name) }
        }
        for device in config.devices {
            guard let before = oldDevices[device.name], let supervisor = supervisors[device.name] else {
                report.added.append(device.name)
                add(device)
                continue
            }
            if before == device {
                report.unchanged.append(device.name)
            } else if before.sameConnection(as: device) {
                report.updated.append(device.name)
                supervisor.apply(device)
            } else {
                report.reconnecting.append(device.name)
                reconnects.append((supervisor, device.name))
            }
        }
        if !reconnects.isEmpty {
            let pending = reconnects
            let number = state.withLock { inner in
                inner.reloads += 1
                return inner.reloads
            }
            let done = Latch<Void>()
            state.withLock { $0.reconnects[number] = done }
            let spawned = spawn { [self] in
                await withTaskGroup(of: Void.self) { group in
                    for (supervisor, name) in pending {
                        group.addTask { [self] in
                            await supervisor.stop(reason: "reloaded with a new connection", abortingRun: false)
                            replace(supervisor, named: name)
                        }
                    }
                }
                state.withLock { _ = $0.reconnects.removeValue(forKey: number) }
                done.settle(())
            }
            if !spawned {
                state.withLock { _ = $0.reconnects.removeValue(forKey: number) }
                done.settle(())
            }
        }
        report.removed.sort()
        return report
    }

    /// Waits until the devices that reloads reconnect have been restarted.
    public func reconnected() async {
        // A task that ended before it was added is removed here instead.
        while let (number, pending) = state.withLock({ $0.reconnects.first.map { ($0.key, $0.value) } }) {
            await pending.wait()
            state.withLock { _ = $0.reconnects.removeValue(forKey: number) }
        }
    }

    /// Starts a new supervisor for `name` in place of `old`, with the device's config as it stands
    /// now (a later reload may have changed it again), unless the rig is stopping or a later reload
    /// has removed or replaced the device meanwhile.
    private func replace(_ old: DeviceSupervisor, named name: String) {
        let supervisor = state.withLock { inner -> DeviceSupervisor? in
            guard !inner.stopping, inner.supervisors[name] === old,
                let device = inner.config.devices.first(where: { $0.name == name })
            else { return nil }
            let supervisor = DeviceSupervisor(config: device, context: context, queue: queue)
            inner.supervisors[name] = supervisor
            return supervisor
        }
        if let supervisor { spawn { await supervisor.run() } }
    }

    /// Stops every supervisor at once (abort, close runs as incomplete with `reason`, disconnect).
    public func stop(reason: String) async {
        let supervisors = state.withLock { inner in
            inner.stopping = true
            return Array(inner.supervisors.values)
        }
        await recordCancelled(queue.close(reason: reason))
        await withTaskGroup(of: Void.self) { group in
            for supervisor in supervisors { group.addTask { await supervisor.stop(reason: reason) } }
        }
    }

    /// Returns when every supervisor has ended (by itself: all schedules done, or the journal failed;
    /// or stopped), and every reconnect with it.
    public func finished() async {
        await allEnded.wait()
    }

    private func add(_ device: DeviceConfig) {
        let supervisor = DeviceSupervisor(config: device, context: context, queue: queue)
        state.withLock { $0.supervisors[device.name] = supervisor }
        spawn { await supervisor.run() }
    }
}

/// What a reload did, by device name.
public struct RigReload: Sendable, Equatable, CustomStringConvertible {
    public var added: [String] = []
    public var removed: [String] = []
    /// Changed where the running supervisor applies it (schedule, timeouts, script): from the next run.
    public var updated: [String] = []
    /// Changed how the device is reached: reconnected once its run in progress has ended.
    public var reconnecting: [String] = []
    public var unchanged: [String] = []
    /// Parts of the config that changed but apply only when the rig restarts (left as they were).
    public var needsRestart: [String] = []

    /// `added [c], removed [a], updated [b] (from its next run), reconnecting [] (after its run),
    /// unchanged 1; not applied: [status] changed, restart the rig to apply it`.
    public var description: String {
        var text =
            "added \(added), removed \(removed), updated \(updated) (from the next run), "
            + "reconnecting \(reconnecting) (after the run in progress), unchanged \(unchanged.count)"
        if !needsRestart.isEmpty {
            text += "; not applied: \(needsRestart.joined(separator: ", ")) changed, restart the rig to apply it"
        }
        return text
    }
}
