public import BLEHost
public import BLELinux

/// What a controller says about itself: hcipico's own host started on a transport (a user channel, a
/// UART or TCP) long enough to read it, then shut down (`hcipico adapters --transport`).
public enum ControllerProbe {
    /// Initialises the controller `transport` reaches and returns what it reported.
    public static func describe(_ transport: TransportSpec) async throws(LinkOpenError) -> HCIControllerInfo {
        let hci: any HCITransport
        do {
            hci = try transport.openHCITransport()
        } catch {
            throw LinkOpenError(error.message, cause: .system(error))
        }
        let host = HCIHost(transport: hci)
        do throws(HCIHostError) {
            let info = try await host.start()
            await host.shutdown()
            return info
        } catch {
            await host.shutdown()
            throw LinkOpenError("\(transport): \(error)", cause: .host(error))
        }
    }
}
