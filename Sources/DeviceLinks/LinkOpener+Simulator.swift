import BLEHost
import BLELinux
import PicoSimulator

extension LinkOpener {
    /// A simulated peripheral in this process, reached over a socketpair through the same GATT client
    /// as a real device. A simulated Pico is kept by the opener across links (`SimulatedPicos`).
    func openSimulator(
        _ kind: SimulatorKind,
        settings: SimulatorSettings,
        mtu: Int
    ) async throws(LinkOpenError)
        -> DeviceLink
    {
        let name = "sim:\(kind.rawValue)"
        if let socket = settings.socket {
            guard kind == .pico else {
                throw LinkOpenError("\(name): only a simulated Pico is served on a socket", cause: .badInput)
            }
            let transport: UnixSocketATTTransport
            do throws(SimulatorServer.Failure) {
                transport = try SimulatorServer.connect(socket)
            } catch {
                throw LinkOpenError("cannot reach \(name): \(error)", cause: .simulator)
            }
            let client = try await gattClient(over: transport, name: name, mtu: mtu)
            return DeviceLink(client: client, name: name, path: .simulator(kind, close: {}), logger: logger)
        }
        let host: UnixSocketATTTransport
        let close: @Sendable () -> Void
        do {
            let (hostEnd, deviceEnd) = try UnixSocketATTTransport.makePair()
            host = hostEnd
            let device: any ATTTransport =
                settings.fault != nil || settings.trace
                ? SimulatorProbe(wrapping: deviceEnd, fault: settings.fault, trace: settings.trace ? logger : nil)
                : deviceEnd
            switch kind {
            case .pico:
                // The device outlives the link: a script it still runs is there for the next link.
                let devices = simulatedPicos
                let pico = devices.device(settings, trace: settings.trace ? logger : nil)
                let peripheral = SimulatedPicoPeripheral(transport: device, pico: pico)
                try peripheral.start()
                // The link keeps the opener's devices alive (an opener may be gone before its links).
                close = { withExtendedLifetime(devices) { peripheral.close() } }
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
            throw LinkOpenError("cannot start \(name): \(error)", cause: .simulator)
        }
        do throws(LinkOpenError) {
            let client = try await gattClient(over: host, name: name, mtu: mtu)
            return DeviceLink(client: client, name: name, path: .simulator(kind, close: close), logger: logger)
        } catch {
            close()
            throw error
        }
    }
}
