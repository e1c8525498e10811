import BLEHost
import BLELinux

extension DeviceLink {
    /// Whether the link opened for a forced pairing holds a new one: on hcipico's own host the
    /// encryption it reached; on the kernel path the level the kernel reports, once the agent has
    /// received the keys (up to `keyWait` after the link is encrypted). The level reached, or why the
    /// encrypted link is not a new pairing.
    public func newPairing(keyWait: Duration = .seconds(10)) async -> Result<String, PairingShortfall> {
        switch path {
        case .host(_, let connection, _):
            return connection.encryption.map { .success("\($0.level)") } ?? .failure(PairingShortfall())
        case .kernel(let socket, _, let agent):
            // The kernel raises the level when encryption starts; the keys come with the key
            // distribution that follows.
            guard let reached = socket.securityLevel, reached.rawValue >= L2CAPSecurityLevel.medium.rawValue,
                let agent
            else { return .failure(PairingShortfall()) }
            guard await agent.keysReported(within: keyWait) > 0 else {
                return .failure(PairingShortfall(kernelSecurity: reached, answers: agent.answers, keyWait: keyWait))
            }
            return .success("by the kernel, security \(reached)")
        case .simulator:
            return .failure(PairingShortfall())
        }
    }
}

/// Why an encrypted link is not a new pairing.
public struct PairingShortfall: Error, CustomStringConvertible, Sendable {
    /// The level the kernel reported (kernel path only).
    public var kernelSecurity: L2CAPSecurityLevel?
    /// What the pairing agent answered the kernel (kernel path only).
    public var answers: [String] = []
    /// How long the keys were waited for (kernel path only).
    public var keyWait: Duration = .zero

    /// The shortfall's explanation, for a person.
    public var description: String {
        guard let kernelSecurity else { return "the link is encrypted, but no new pairing took place" }
        let asked = answers.isEmpty ? "the kernel asked nothing" : "the agent " + answers.joined(separator: ", then ")
        return "the kernel encrypted the link (security \(kernelSecurity)) but reported no new key within "
            + "\(keyWait) (\(asked)): the pairing did not finish, or the kernel used a key it still held"
    }
}
