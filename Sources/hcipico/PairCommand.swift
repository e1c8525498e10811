import ArgumentParser
import BLEHost
import BLELinux
import DeviceLinks
import Terminal

/// `hcipico pair DEVICE`: pair now and keep the bond, so later commands encrypt without pairing.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a device and keep the bond.",
        discussion: """
            Pairs even when a bond exists, replacing it. On hcipico's own host (--transport user:hciN, serial:…, \
            tcp:…) --security authenticate asks for protection against a man in the middle (a passkey: \
            --passkey N, or a prompt on a terminal). On the kernel path the kernel pairs (Just Works without \
            bluetoothd; hcipico answers its questions and keeps the key); a link the kernel still holds to the \
            device is ended first, since a link encrypted with the old key would be reused without pairing \
            (a program using that link loses it). The bond goes to the controller's \
            file in the bond store (see 'hcipico bonds'); later commands with --security use it without \
            pairing again.
            """
    )

    @OptionGroup var link: LinkOptions

    func validate() throws {
        switch try link.target() {
        case .simulator: throw ValidationError("a simulator does not pair; give a device address")
        case .serialPort: throw ValidationError("a serial port does not pair; give a Bluetooth address")
        case .radio(_, .kernel) where link.security == .authenticate:
            throw ValidationError(
                "the kernel path pairs with Just Works only without bluetoothd (the adapter has no input or output); "
                    + "to authenticate, pair through hcipico's own host (--transport user:hciN, serial:…, tcp:…)"
            )
        case .radio: break
        }
    }

    func run() async throws {
        let outcome = try await link.withClient(mtu: ATTBearer.defaultMTU, forcePairing: true, "pair") {
            link throws(GATTError) -> Result<String, PairingShortfall> in await link.newPairing()
        }
        switch outcome {
        case .success(let level):
            ValueText.emit("paired with \(link.device): \(level)\n")
        case .failure(let shortfall):
            StandardError.report("\(link.device): \(shortfall)")
            throw ExitStatus.securityFailed.exitCode
        }
    }
}
