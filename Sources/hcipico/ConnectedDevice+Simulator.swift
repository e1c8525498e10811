import BLEHost
import BLELinux
import PicoSimulator

extension ConnectedDevice {
    /// A simulated peripheral in this process, reached over a socketpair through the same GATT client
    /// as a real device; `fault` makes it misbehave on purpose.
    static func openSimulator(
        _ kind: DeviceTarget.SimulatorKind,
        fast: Bool,
        fault: SimulatorFault? = nil,
        trace: Bool = false,
        seed: UInt64? = nil,
        mtu: Int = ATTBearer.maximumMTU
    ) async throws(Failure) -> ConnectedDevice {
        let host: UnixSocketATTTransport
        let close: @Sendable () -> Void
        do {
            let (hostEnd, deviceEnd) = try UnixSocketATTTransport.makePair()
            host = hostEnd
            let device: any ATTTransport =
                fault != nil || trace ? SimulatorProbe(wrapping: deviceEnd, fault: fault, trace: trace) : deviceEnd
            switch kind {
            case .pico:
                var configuration: SimulatedPicoConfiguration = fast ? .fast : SimulatedPicoConfiguration()
                configuration.abortStopsScript = fault != .ignoresAbort
                // Noise differs from run to run, as a measurement's does, unless a seed is given.
                configuration.noiseSeed = seed
                let peripheral = SimulatedPicoPeripheral(transport: device, configuration: configuration)
                try peripheral.start()
                close = { peripheral.close() }
            case .calculator:
                let peripheral = SimulatedCalculatorPeripheral(transport: device)
                try peripheral.start()
                close = { peripheral.close() }
            case .hm10:
                let peripheral = SimulatedHM10Peripheral(transport: device)
                try peripheral.start()
                close = { peripheral.close() }
            }
        } catch {
            throw Failure(description: "cannot start sim:\(kind.rawValue): \(error)", status: .failure)
        }
        do {
            let client = try await GATTClient.connect(transport: host, mtu: mtu)
            return ConnectedDevice(client: client, name: "sim:\(kind.rawValue)", path: .simulator(kind, close: close))
        } catch {
            close()
            throw Failure(description: "sim:\(kind.rawValue): \(error)", status: error.exitStatus)
        }
    }
}
