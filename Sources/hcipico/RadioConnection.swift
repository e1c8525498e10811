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
    private let capture: BTSnoopWriter?

    /// Why connecting failed, with the exit status it maps to.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        let status: ExitStatus
    }

    /// Connects; with `btsnoop`, every HCI packet (our own host) or every ATT PDU wrapped as ACL (the
    /// kernel path) is captured there in btsnoop format for Wireshark or `btmon -r`.
    static func open(
        address: BluetoothAddress,
        transport: TransportSpec,
        timeout: Duration,
        btsnoop: String? = nil
    ) async throws(Failure) -> RadioConnection {
        let capture: BTSnoopWriter?
        do {
            capture = try btsnoop.map { path throws(TransportError) in try BTSnoopWriter(path: path) }
        } catch {
            throw Failure(description: "\(btsnoop ?? ""): cannot write the capture: \(error)", status: .badInput)
        }
        switch transport {
        case .kernel(let adapter):
            let socket: L2CAPATTSocket
            do {
                socket = try await L2CAPATTSocket.connect(to: address, adapter: adapter, timeout: timeout)
            } catch {
                throw Failure(description: error.message, status: error.exitStatus)
            }
            let att: any ATTTransport =
                capture.map { BTSnoopATTCapture(wrapping: socket, writer: $0, handle: socket.connectionHandle) }
                ?? socket
            return try await session(over: att, address: address, host: nil, capture: capture)
        case .userChannel, .serial, .tcp:
            let hci: any HCITransport
            do {
                hci = try transport.openHCITransport()
            } catch {
                throw Failure(description: error.message, status: error.exitStatus)
            }
            let host = HCIHost(transport: capture.map { BTSnoopCaptureTransport(wrapping: hci, writer: $0) } ?? hci)
            do {
                _ = try await host.start()
                let link = try await host.connect(to: address, timeout: timeout)
                return try await session(over: link.att, address: address, host: host, capture: capture)
            } catch let error as Failure {
                await host.shutdown()
                capture?.close()
                throw error
            } catch {
                await host.shutdown()
                capture?.close()
                throw Failure(description: "\(transport): \(error)", status: .connectionLost)
            }
        }
    }

    private static func session(
        over transport: any ATTTransport,
        address: BluetoothAddress,
        host: HCIHost?,
        capture: BTSnoopWriter?
    ) async throws(Failure) -> RadioConnection {
        do {
            let client = try await GATTClient.connect(transport: transport)
            let session = try await PicoSession.open(client: client, name: address.description)
            return RadioConnection(session: session, host: host, capture: capture)
        } catch {
            transport.close()
            if host == nil { capture?.close() }
            throw Failure(description: "\(address): \(error)", status: .connectionLost)
        }
    }

    func close() async {
        session.close()
        await host?.shutdown()
        capture?.close()
    }
}
