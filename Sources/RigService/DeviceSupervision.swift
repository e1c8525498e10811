import Coordination
import Logging
import RigCore
import ServiceLifecycle

/// The rig's devices as the service whose end ends the rig: once the status server listens (when
/// there is one), the supervisors run, in a child task (`Rig.run`); on the first ending (a signal, `--for`, every schedule done,
/// the journal failing) they stop, closing the runs still open with the ending's reason, and the
/// service returns, which shuts the rest of the rig down.
struct DeviceSupervision: Service {
    let rig: Rig
    let config: RigConfig
    let ending: Latch<RigEnding>
    let statusStart: Latch<StatusStart>?
    let notifier: ServiceNotifier
    let logger: Logger

    func run() async {
        if let statusStart, case .failed(let message) = await statusStart.wait() {
            ending.settle(.statusFailed(message))
            return
        }
        let devices = CountText.of(config.devices.count, "device")
        logger.info("rig \(config.name): \(devices), journal \(config.journal)")
        await withDiscardingTaskGroup { group in
            group.addTask { [rig] in await rig.run() }
            notifier.ready(status: "\(devices) starting, journal \(config.journal)")
            group.addTask { [rig, ending] in
                await rig.finished()
                ending.settle(.schedulesDone)
            }
            let why = await ending.wait()
            notifier.stopping("\(why)")
            logger.info("rig \(config.name): stopping (\(why))")
            await rig.stop(reason: why.runReason)
        }
    }
}
