import ArgumentParser
import BLEHost
import BLELinux

/// `hcipico pair DEVICE`: pair now and keep the bond, so later commands encrypt without pairing.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a device and keep the bond.",
        discussion: """
            Pairs even when a bond exists, replacing it. On hcipico's own host (--transport user:hciN, serial:…, \
            tcp:…) --security authenticate asks for protection against a man in the middle (a passkey: \
            --passkey N, or a prompt on a terminal). On the kernel path the kernel pairs (Just Works without \
            bluetoothd; hcipico answers its questions and keeps the key). The bond goes to the controller's \
            file in the bond store (see 'hcipico bonds'); later commands with --security use it without \
            pairing again.
            """
    )

    @OptionGroup var link: LinkOptions

    func validate() throws {
        switch try link.target() {
        case .simulator: throw ValidationError("a simulator does not pair; give a device address")
        case .radio(_, .kernel) where link.security == .authenticate:
            throw ValidationError(
                "the kernel path pairs with Just Works only without bluetoothd (the adapter has no input or output); "
                    + "to authenticate, pair through hcipico's own host (--transport user:hciN, serial:…, tcp:…)"
            )
        case .radio: break
        }
    }

    func run() async throws {
        if case .radio(let address, .kernel(let adapter)) = try link.target() {
            // The kernel encrypts from a key it holds instead of pairing: forget the old bond first.
            await KernelLinkSecurity.forget(address, adapter: adapter, bondDirectory: link.bondDirectory)
        }
        let level = try await link.withClient(mtu: ATTBearer.defaultMTU, forcePairing: true, "pair") {
            link throws(GATTError) -> String? in
            switch link.path {
            case .host(_, let connection):
                return connection.encryption?.level
            case .kernel(let socket, _, let agent):
                guard let reached = socket.securityLevel, reached.rawValue >= L2CAPSecurityLevel.medium.rawValue,
                    agent?.keysReceived ?? 0 > 0
                else { return nil }
                return "by the kernel, security \(reached)"
            case .simulator:
                return nil
            }
        }
        guard let level else {
            StandardError.report("\(link.device): the link is encrypted, but no new pairing took place")
            throw ExitStatus.securityFailed.exitCode
        }
        ValueText.emit("paired with \(link.device): \(level)\n")
    }
}
