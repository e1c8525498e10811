import ArgumentParser
import BLEHost
import BLELinux
import DeviceLinks
import PicoLink
import PicoSimulator
import Terminal

/// The DEVICE argument and the options that say how to reach it, shared by every command that talks
/// to a device: `sim[:KIND]`, or an address over the kernel path or hcipico's own HCI host.
struct LinkOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The device: a Bluetooth address (AA:BB:CC:DD:EE:FF), a simulator (sim = sim:pico; the overview names the others this command takes), or for the EmStat Pico commands a serial port (tty:/dev/ttyUSB0[@230400]).",
            valueName: "device"
        )
    )
    var device: String

    @Flag(help: "The address is a random (static or private) one, not a public one.")
    var random = false

    @Option(help: "The adapter for the kernel path (hciN; default: the kernel's choice).")
    var adapter: String?

    @Option(help: "How to reach the controller: \(TransportSpec.acceptedForms) (default kernel).")
    var transport: String?

    @Option(help: "Capture the link to this btsnoop file (Wireshark, btmon -r): HCI packets, or ATT as ACL.")
    var btsnoop: String?

    @Option(help: "Seconds to wait for the connection.")
    var timeout: Double = 20

    @Option(
        help: ArgumentHelp(
            "Secure the link: encrypt (pair if there is no bond), authenticate (a passkey or numeric comparison), or auto (pair when the device refuses a request for want of security, then retry it once).",
            valueName: "level"
        )
    )
    var security: SecurityMode?

    @Option(help: "The passkey to type when pairing (0…999999): the one the device shows or has set.")
    var passkey: UInt32?

    @Option(
        help:
            "The bond store's directory (default $HCIPICO_BONDS, /var/lib/hcipico/bonds as root, else ~/.local/state/hcipico/bonds)."
    )
    var bonds: String?

    @Flag(help: "Simulator: run as fast as possible instead of in real time.")
    var fast = false

    @Option(help: "Simulator: the noise seed, for a run that repeats exactly (default: a fresh one each run).")
    var seed: UInt64?

    @Option(help: .hidden)
    var simFault: SimulatorFault?

    @Flag(help: .hidden)
    var simTrace = false

    @Option(help: "Simulator: the simulated Pico served on this Unix socket by 'hcipico simulate'.")
    var simSocket: String?

    @Option(
        help: """
            Simulator: the Pico's cell: auto (by the script: a Randles circuit for EIS, a redox couple for \
            CV, DPV, SWV and NPV, else a 10 kΩ resistor), resistor, resistor:OHMS, randles or redox.
            """
    )
    var simCell: String = "auto"

    @OptionGroup var log: LogOptions

    func validate() throws {
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be in (0, 3600] seconds") }
        if try target().isSimulator && btsnoop != nil {
            throw ValidationError("--btsnoop captures a radio link, not a simulator")
        }
        if case .serialPort(let port) = try target() {
            if btsnoop != nil || security != nil || passkey != nil {
                throw ValidationError(
                    "\(port) is a serial port: --btsnoop, --security and --passkey are for Bluetooth links"
                )
            }
        }
        if let passkey, passkey > 999_999 { throw ValidationError("--passkey must be six digits at most (0…999999)") }
        if simCell != "auto", CellModel(name: simCell) == nil {
            throw ValidationError("--sim-cell \(simCell): not one of \(CellModel.names)")
        }
        if passkey != nil, case .radio(_, .kernel) = try target() {
            throw ValidationError(
                "--passkey needs hcipico's own host (--transport user:hciN, serial:…, tcp:…): on the kernel path "
                    + "the kernel pairs, and without bluetoothd the adapter has no input or output: Just Works only"
            )
        }
    }

    /// `--bonds`, or the default bond directory.
    var bondDirectory: String { bonds ?? BondStore.defaultDirectory }

    /// The parsed target; `validate()` has already rejected a malformed one.
    func target() throws(ValidationError) -> DeviceTarget {
        do {
            return try DeviceTarget(parsing: device, random: random, adapter: adapter, transport: transport)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// What these options ask for, as a value a command's work task can carry (and, from here on,
    /// diagnostics at `--log-level` on standard error).
    func request(forcePairing: Bool = false) throws(LinkOpenError) -> LinkRequest {
        log.apply()
        let target = try DeviceTarget(parsing: device, random: random, adapter: adapter, transport: transport)
        let options = LinkOpener.Options(
            timeout: .milliseconds(Int(timeout * 1000)),
            btsnoop: btsnoop,
            security: (forcePairing ? security ?? .encrypt : security).map {
                SecurityRequest(
                    mode: $0,
                    passkey: passkey,
                    bondDirectory: bondDirectory,
                    forcePairing: forcePairing,
                    prompter: TerminalPairingPrompter.available
                )
            },
            simulator: SimulatorSettings(
                fast: fast,
                fault: simFault,
                trace: simTrace,
                seed: seed,
                cell: CellModel(name: simCell),
                socket: simSocket
            )
        )
        return LinkRequest(target: target, options: options, logger: ReportLogHandler.logger)
    }

    /// Opens the link: connected, MTU exchanged (offering `mtu`), ready for discovery.
    func open(mtu: Int = ATTBearer.maximumMTU) async throws(LinkOpenError) -> DeviceLink {
        try await request().open(mtu: mtu)
    }

    /// Opens the link and the EmStat Pico session on it.
    func openPico() async throws(LinkOpenError) -> OpenedPico {
        try await request().openPico()
    }
}
