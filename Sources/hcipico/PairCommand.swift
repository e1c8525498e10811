import ArgumentParser
import BLEHost
import BLELinux

/// `hcipico pair DEVICE`: pair now and keep the bond, so later commands encrypt without pairing.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a device and keep the bond (hcipico's own HCI host: --transport).",
        discussion: """
            Pairs even when a bond exists, replacing it. --security authenticate asks for protection against \
            a man in the middle (a passkey: --passkey N, or a prompt on a terminal). The bond goes to the \
            controller's file in the bond store (see 'hcipico bonds'); later commands with --security use it \
            without pairing again. The kernel path pairs through the kernel on --security encrypt and keeps \
            no bond here.
            """
    )

    @OptionGroup var link: LinkOptions

    func validate() throws {
        switch try link.target() {
        case .simulator: throw ValidationError("a simulator does not pair; give a device address")
        case .radio(_, .kernel):
            throw ValidationError(
                "'pair' needs hcipico's own HCI host (--transport user:hciN, serial:…, tcp:…): on the kernel path "
                    + "the kernel pairs, on --security encrypt, and without bluetoothd keeps the keys only while the link is up"
            )
        case .radio: break
        }
    }

    func run() async throws {
        let encryption = try await link.withClient(mtu: ATTBearer.defaultMTU, forcePairing: true, "pair") {
            link throws(GATTError) in
            if case .host(_, let connection) = link.path { return connection.encryption }
            return nil
        }
        guard let encryption else { throw ExitStatus.securityFailed.exitCode }
        let level =
            (encryption.secureConnections ? "Secure Connections" : "legacy")
            + (encryption.authenticated ? ", authenticated" : ", unauthenticated") + ", \(encryption.keySize)-octet key"
        ValueText.emit("paired with \(link.device): \(level)\n")
    }
}
