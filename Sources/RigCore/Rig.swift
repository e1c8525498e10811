public import Coordination
public import Foundation
public import Logging
public import PicoLink
public import RigModel
import Synchronization

/// Several instruments, each under its own `DeviceSupervisor`, recording into one journal.
///
/// ```swift
/// let rig = Rig(config: config, connector: connector, journal: journal, logger: logger, toolVersion: "…")
/// rig.start()
/// …
/// await rig.stop(reason: "stopped")        // SIGTERM: abort, close runs as incomplete, disconnect
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
        var reconnects: [Int: Task<Void, Never>] = [:]
        var reloads = 0
    }

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
    }

    /// Starts a supervisor for every device.
    public func start() {
        let devices = state.withLock { $0.config.devices }
        for device in devices { add(device) }
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
            let task = Task { [self] in
                await withTaskGroup(of: Void.self) { group in
                    for (supervisor, name) in pending {
                        group.addTask { [self] in
                            await supervisor.stop(reason: "reloaded with a new connection", abortingRun: false)
                            replace(supervisor, named: name)
                        }
                    }
                }
                state.withLock { _ = $0.reconnects.removeValue(forKey: number) }
            }
            state.withLock { $0.reconnects[number] = task }
        }
        report.removed.sort()
        return report
    }

    /// Waits until the devices that reloads reconnect have been restarted.
    public func reconnected() async {
        // A task that ended before it was added is removed here instead.
        while let (number, pending) = state.withLock({ $0.reconnects.first.map { ($0.key, $0.value) } }) {
            await pending.value
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
        supervisor?.start()
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

    /// Returns when every supervisor has ended by itself (all schedules done, or the journal failed).
    public func finished() async {
        while true {
            await reconnected()
            let supervisors = state.withLock { Array($0.supervisors.values) }
            for supervisor in supervisors { await supervisor.finished() }
            let again = state.withLock { inner in
                !inner.reconnects.isEmpty
                    || inner.supervisors.values.contains { s in !supervisors.contains { $0 === s } }
            }
            if !again { return }
        }
    }

    private func add(_ device: DeviceConfig) {
        let supervisor = DeviceSupervisor(config: device, context: context, queue: queue)
        state.withLock { $0.supervisors[device.name] = supervisor }
        supervisor.start()
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
