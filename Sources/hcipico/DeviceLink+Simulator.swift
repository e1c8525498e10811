import BLEHost
import PicoSimulator

extension DeviceLink {
    /// A simulated peripheral in this process, reached over a socketpair through the same GATT client
    /// as a real device.
    static func openSimulator(
        _ kind: DeviceTarget.SimulatorKind,
        fast: Bool,
        mtu: Int = ATTBearer.maximumMTU
    ) async throws(Failure) -> DeviceLink {
        do {
            let (host, device) = try InProcessATTTransport.makePair()
            let close: @Sendable () -> Void
            switch kind {
            case .pico:
                let configuration: SimulatedPicoConfiguration = fast ? .fast : SimulatedPicoConfiguration()
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
            do {
                let client = try await GATTClient.connect(transport: host, mtu: mtu)
                return DeviceLink(client: client, name: "sim:\(kind.rawValue)", path: .simulator(kind, close: close))
            } catch {
                close()
                throw error
            }
        } catch {
            throw Failure(description: "cannot start sim:\(kind.rawValue): \(error)", status: .connectionLost)
        }
    }
}
