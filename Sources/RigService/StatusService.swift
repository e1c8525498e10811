import Coordination
import Logging
import RigStatus
import ServiceLifecycle

/// The status server as a service: serves until the rig shuts down. Whether it listens (and on which
/// port) or cannot is settled in `started`, which the devices wait for before they start.
struct StatusService: Service {
    let server: StatusServer
    let host: String
    let port: Int
    let tokenRequired: Bool
    let started: Latch<StatusStart>
    let logger: Logger

    func run() async {
        do {
            try await cancelWhenGracefulShutdown { [server, host, tokenRequired, started, logger] in
                try await server.run { port in
                    started.settle(.listening(port: port))
                    let shown = host.contains(":") ? "[\(host)]" : host
                    logger.info("status page: http://\(shown):\(port)/\(tokenRequired ? " (token required)" : "")")
                }
            }
        } catch {
            let failed = started.settle(.failed("status page: cannot listen on \(host):\(port): \(error)"))
            // It never listened: the rig ends; wait for its shutdown to reach this service.
            if failed { try? await gracefulShutdown() }
        }
    }
}
