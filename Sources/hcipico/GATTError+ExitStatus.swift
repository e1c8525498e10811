import BLEHost

extension GATTError {
    /// The exit status of a failed GATT operation: the device's refusal, a lost link, a timeout, or
    /// something asked that cannot be done (an unknown or ambiguous attribute, a value too long).
    var exitStatus: ExitStatus {
        switch self {
        case .att, .invalidResponse, .unexpectedResponse: .deviceError
        case .transactionTimeout: .timeout
        case .disconnected, .send, .serviceChanged: .connectionLost
        case .invalidArgument, .notFound: .badInput
        case .notStarted: .failure
        }
    }
}

extension LinkOptions {
    /// Opens the link (offering `mtu`), runs `body` on its client and closes it. A failure is reported
    /// on standard error as `hcipico: DEVICE: WHAT: why` and ends the command with its exit status.
    func withClient<Result>(
        mtu: Int = ATTBearer.maximumMTU,
        _ what: String,
        _ body: (DeviceLink) async throws(GATTError) -> Result
    ) async throws -> Result {
        let link: DeviceLink
        do {
            link = try await open(mtu: mtu)
        } catch {
            StandardError.report(error.description)
            throw error.status.exitCode
        }
        do {
            let result = try await body(link)
            await link.close()
            return result
        } catch {
            await link.close()
            StandardError.report("\(link.name): \(what): \(error)")
            throw error.exitStatus.exitCode
        }
    }
}
