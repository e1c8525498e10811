public import BLEHost
public import BLELinux
public import Logging

/// What a controller says about itself: hcipico's own host started on a transport (a user channel, a
/// UART or TCP) long enough to read it, then shut down (`hcipico adapters --transport`).
public enum ControllerProbe {
    /// Initialises the controller `transport` reaches, as a link's own host would (`logger` hears the
    /// details), and returns what it reported.
    public static func describe(
        _ transport: TransportSpec,
        logger: Logger
    ) async throws(LinkOpenError) -> HCIControllerInfo {
        let host = try await SharedHosts.start(transport, capture: nil, logger: logger)
        let info = host.controller
        await host.shutdown()
        guard let info else {
            throw LinkOpenError("\(transport): \(HCIHostError.notRunning(nil))", cause: .host(.notRunning(nil)))
        }
        return info
    }
}
