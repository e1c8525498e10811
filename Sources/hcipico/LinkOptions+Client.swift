import BLEHost
import Coordination
import DeviceLinks
import Terminal

extension LinkOptions {
    /// Opens the link (offering `mtu`), runs `body` on its client and closes it, on the shutdown path:
    /// a signal or a closed output cancels what is in flight (an ATT request, the connect), the link is
    /// closed once, and the command exits with the stop's status. A failure is reported on standard
    /// error as `hcipico: DEVICE: WHAT: why` and ends the command with its exit status.
    func withClient<Result: Sendable>(
        mtu: Int = ATTBearer.maximumMTU,
        forcePairing: Bool = false,
        _ what: String,
        _ body: @escaping @Sendable (DeviceLink) async throws(GATTError) -> Result
    ) async throws -> Result {
        let request: LinkRequest
        do {
            request = try self.request(forcePairing: forcePairing)
        } catch {
            StandardError.report(error.description)
            throw error.exitStatus.exitCode
        }
        let shutdown = Shutdown.shared
        shutdown.install()
        let outcome: Swift.Result<Result, ExitStatus> = try await shutdown.run {
            let link: DeviceLink
            do throws(LinkOpenError) {
                link = try await request.open(mtu: mtu)
            } catch {
                return .failure(shutdown.failure(error.description, error.exitStatus))
            }
            do throws(GATTError) {
                let result = try await body(link)
                await link.close()
                return .success(result)
            } catch {
                await link.close()
                let hint = SecurityHint.suffix(for: error, mode: request.security?.mode)
                let status = link.security?.pairingFailed == true ? ExitStatus.securityFailed : error.exitStatus
                return .failure(shutdown.failure("\(link.name): \(what): \(error)\(hint)", status))
            }
        }
        return try outcome.mapError { $0.exitCode }.get()
    }
}
