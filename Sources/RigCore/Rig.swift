public import Foundation
public import Logging
public import PicoLink
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
    private let context: RigContext
    private let state: Mutex<Inner>

    private let failureText: FailureText

    struct Inner {
        var config: RigConfig
        var supervisors: [String: DeviceSupervisor] = [:]
    }

    /// The first fatal error, written from whichever supervisor's task hit it.
    final class FailureText: Sendable {
        let text = Mutex<String?>(nil)
    }

    public init(
        config: RigConfig,
        connector: any DeviceConnector,
        journal: any RunJournal,
        clock: any RigClock = SystemRigClock(),
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

    /// Applies a new config (SIGHUP): added devices start, removed ones stop after closing their run,
    /// changed ones restart, unchanged ones are not touched.
    public func reload(_ config: RigConfig) async -> RigReload {
        let (old, supervisors) = state.withLock { inner in
            defer { inner.config = config }
            return (inner.config, inner.supervisors)
        }
        let oldDevices = Dictionary(uniqueKeysWithValues: old.devices.map { ($0.name, $0) })
        let newNames = Set(config.devices.map(\.name))
        var report = RigReload()
        for (name, device) in oldDevices
        where !newNames.contains(name) || config.devices.first(where: { $0.name == name }) != device {
            let changed = newNames.contains(name)
            if changed { report.changed.append(name) } else { report.removed.append(name) }
            await supervisors[device.name]?.stop(
                reason: changed ? "reloaded with a new config" : "removed from the config"
            )
            state.withLock { _ = $0.supervisors.removeValue(forKey: name) }
        }
        for device in config.devices {
            guard let before = oldDevices[device.name] else {
                report.added.append(device.name)
                add(device)
                continue
            }
            if before == device { report.unchanged.append(device.name) } else { add(device) }
        }
        report.removed.sort()
        report.changed.sort()
        return report
    }

    /// Stops every supervisor at once (abort, close runs as incomplete with `reason`, disconnect).
    public func stop(reason: String) async {
        let supervisors = state.withLock { Array($0.supervisors.values) }
        await withTaskGroup(of: Void.self) { group in
            for supervisor in supervisors { group.addTask { await supervisor.stop(reason: reason) } }
        }
    }

    /// Returns when every supervisor has ended by itself (all schedules done, or the journal failed).
    public func finished() async {
        while true {
            let supervisors = state.withLock { Array($0.supervisors.values) }
            for supervisor in supervisors { await supervisor.finished() }
            let again = state.withLock { inner in
                inner.supervisors.values.contains { s in !supervisors.contains { $0 === s } }
            }
            if !again { return }
        }
    }

    private func add(_ device: DeviceConfig) {
        let supervisor = DeviceSupervisor(config: device, context: context)
        state.withLock { $0.supervisors[device.name] = supervisor }
        supervisor.start()
    }
}

/// What a reload did, by device name.
public struct RigReload: Sendable, Equatable {
    public var added: [String] = []
    public var removed: [String] = []
    public var changed: [String] = []
    public var unchanged: [String] = []
}
