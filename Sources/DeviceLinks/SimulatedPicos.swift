import Logging
import PicoSimulator
import Synchronization

/// The simulated Picos one `LinkOpener` has made, kept across their links: a script still running when
/// a link closes goes on, and the next link to the same device finds it, as with an instrument. A device
/// is known by its serial number, fault and pace; all are stopped when the opener is gone.
public final class SimulatedPicos: Sendable {
    private let devices = Mutex<[String: SimulatedPico]>([:])

    /// The device for `settings`, made (and started) on first use; its cell changes are reported to
    /// `trace` (at notice level) when given.
    func device(_ settings: SimulatorSettings, trace: Logger?) -> SimulatedPico {
        let key = "\(settings.serialNumber ?? "")|\(settings.fault?.rawValue ?? "")|\(settings.fast)"
        return devices.withLock { devices in
            if let device = devices[key] { return device }
            let device = Self.makeDevice(settings, trace: trace)
            devices[key] = device
            return device
        }
    }

    /// A started simulated Pico as `settings` say; its cell's changes reported to `trace` when given.
    static func makeDevice(_ settings: SimulatorSettings, trace: Logger?, uart: Bool = false) -> SimulatedPico {
        var configuration: SimulatedPicoConfiguration = settings.fast ? .fast : SimulatedPicoConfiguration()
        if uart {
            configuration.receiveBufferCapacity = 64 * 1024
            configuration.uartBytesPerSecond = nil
        }
        configuration.abortStopsScript = settings.fault != .ignoresAbort
        // Noise differs from run to run, as a measurement's does, unless a seed is given.
        configuration.noiseSeed = settings.seed
        if let serialNumber = settings.serialNumber { configuration.serialNumber = serialNumber }
        if let cell = settings.cell { configuration.cell = cell }
        if let trace { configuration.onCellChange = { cell in trace.notice("sim: \(cell)") } }
        let device = SimulatedPico(configuration: configuration)
        device.start()
        return device
    }

    /// A started simulated Pico for a serial line (`SimulatedPicoPTY`): as `makeDevice`, with a receive
    /// buffer that holds the largest script (the line, not the module's FIFO, paces what comes in).
    public static func makeUARTDevice(_ settings: SimulatorSettings, trace: Logger?) -> SimulatedPico {
        makeDevice(settings, trace: trace, uart: true)
    }

    deinit {
        for device in devices.withLock({ Array($0.values) }) { device.stop() }
    }
}
