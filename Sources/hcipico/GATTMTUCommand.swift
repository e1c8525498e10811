import ArgumentParser
import BLEHost

/// `hcipico gatt DEVICE mtu`: the ATT MTU the exchange agreed on.
struct GATTMTUCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mtu",
        abstract: "Connect, exchange MTU and print the negotiated ATT_MTU (23 to 517)."
    )

    @OptionGroup var link: LinkOptions

    @Option(help: "The receive MTU to offer (23 to 517; 23 skips the exchange).")
    var request: Int = ATTBearer.maximumMTU

    func validate() throws {
        guard (ATTBearer.defaultMTU...ATTBearer.maximumMTU).contains(request) else {
            throw ValidationError("--request must be from 23 to 517, not \(request)")
        }
    }

    func run() async throws {
        let mtu = try await link.withClient(mtu: request, "exchange MTU") { link throws(GATTError) in
            link.client.mtu
        }
        ValueText.emit("\(mtu)\n")
    }
}
