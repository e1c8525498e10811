import BLEHost
import PicoLink
import PicoSimulator

/// `sim`: a simulated EmStat Pico in this process, reached over a socketpair through the same GATT
/// client and session code as a real device.
struct SimulatorConnection {
    let peripheral: SimulatedPicoPeripheral
    let session: PicoSession

    static func open(fast: Bool, name: String = "sim") async throws -> SimulatorConnection {
        let (host, device) = try InProcessATTTransport.makePair()
        let configuration: SimulatedPicoConfiguration = fast ? .fast : SimulatedPicoConfiguration()
        let peripheral = SimulatedPicoPeripheral(transport: device, configuration: configuration)
        try peripheral.start()
        let client = try await GATTClient.connect(transport: host)
        let session = try await PicoSession.open(client: client, name: name)
        return SimulatorConnection(peripheral: peripheral, session: session)
    }

    func close() {
        session.close()
        peripheral.close()
    }
}
