import BLEHost
import BLELinux
import BLEWire
import PicoLink

/// A Pico reached over a radio: through the kernel's L2CAP LE socket (`--transport kernel`, the
/// default), or through hcipico's own HCI host on a controller it drives itself (`user:`, `serial:`,
/// `tcp:`). Both end in the same `GATTClient` and `PicoSession` as the simulator.
struct RadioConnection {
    let session: PicoSession
    private let host: HCIHost?

    /// Why connecting failed, with the exit status it maps to.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        let status: ExitStatus
    }

    static func open(
        address: BluetoothAddress,
        transport: TransportSpec,
        timeout: Duration
    ) async throws(Failure) -> RadioConnection {
        switch transport {
        case .kernel(let adapter):
            let socket: L2CAPATTSocket
            do {
                socket = try await L2CAPATTSocket.connect(to: address, adapter: adapter, timeout: timeout)
            } catch {
                throw Failure(description: error.message, status: error.exitStatus)
            }
            return try await session(over: socket, address: address, host: nil)
        case .userChannel, .serial, .tcp:
            let hci: any HCITransport
            do {
                hci = try transport.openHCITransport()
            } catch {
                throw Failure(description: error.message, status: error.exitStatus)
            }
            let host = HCIHost(transport: hci)
            do {
                _ = try await host.start()
                let link = try await host.connect(to: address, timeout: timeout)
                return try await session(over: link.att, address: address, host: host)
            } catch let error as Failure {
                await host.shutdown()
                throw error
            } catch {
                await host.shutdown()
                throw Failure(description: "\(transport): \(error)", status: .connectionLost)
            }
        }
    }

    private static func session(
        over transport: any ATTTransport,
        address: BluetoothAddress,
        host: HCIHost?
    ) async throws(Failure) -> RadioConnection {
        do {
            let client = try await GATTClient.connect(transport: transport)
            let session = try await PicoSession.open(client: client, name: address.description)
            return RadioConnection(session: session, host: host)
        } catch {
            transport.close()
            throw Failure(description: "\(address): \(error)", status: .connectionLost)
        }
    }

    func close() async {
        session.close()
        await host?.shutdown()
    }
}
