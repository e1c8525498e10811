import ArgumentParser
import BLEHost
import BLEWire
import Coordination
import DeviceLinks
import DeviceRuns
import Foundation
import PicoLink
import Terminal

/// `hcipico serial DEVICE`: a transparent bridge between standard input/output (or a pseudo-terminal)
/// and a serial-over-GATT service: HM-10, Laird VSP, Nordic UART, or the UUIDs given.
struct SerialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serial",
        abstract: "Bridge stdin/stdout (or a pseudo-terminal) to a BLE serial service (HM-10, Laird VSP, Nordic UART).",
        discussion: """
            The device is an address or a simulator: sim:hm10 (an HM-10 whose UART is looped back, so it \
            echoes), sim:pico (an EmStat Pico behind the Laird VSP service). \
            The service is detected from the device's services unless --service, --rx and --tx name it. \
            Writes are sized to the ATT MTU and paced. At the end of standard input the bridge waits until \
            the device has been quiet for --idle seconds, then exits 0; a dropped link exits 4; a signal closes \
            the link once and exits 130 (Ctrl-C), 143 (SIGTERM), 129 (SIGHUP), or 141 when standard output closed.
            """
    )

    @OptionGroup var link: LinkOptions

    @Option(help: "The serial service's UUID (with --rx and --tx; default: detected).")
    var service: String?

    @Option(help: "The characteristic the host writes to (host → device).")
    var rx: String?

    @Option(help: "The characteristic the device notifies (device → host).")
    var tx: String?

    @Flag(help: "Expose a pseudo-terminal (its path goes to standard error) instead of stdin/stdout.")
    var pty = false

    @Option(help: "After the end of input, exit once the device has been quiet this many seconds.")
    var idle: Double = 1

    func validate() throws {
        guard idle >= 0 && idle <= 3600 else { throw ValidationError("--idle must be in [0, 3600] seconds") }
        _ = try profile()
    }

    /// The profile the UUID options name, or nil to detect it.
    func profile() throws(ValidationError) -> SerialProfile? {
        let given = [service, rx, tx].compactMap { $0 }
        if given.isEmpty { return nil }
        guard let service, let rx, let tx else { throw ValidationError("--service, --rx and --tx go together") }
        func parse(_ text: String, _ option: String) throws(ValidationError) -> BluetoothUUID {
            guard let uuid = BluetoothUUID(text) else {
                throw ValidationError("\(option) '\(text)' is not a UUID (FFE0, 0000FFE0-…, or 128-bit)")
            }
            return uuid
        }
        return .custom(service: try parse(service, "--service"), rx: try parse(rx, "--rx"), tx: try parse(tx, "--tx"))
    }

    func run() async throws {
        let profile = try profile()
        let terminal: PseudoTerminal?
        do {
            terminal = pty ? try PseudoTerminal() : nil
        } catch {
            StandardError.report("cannot open a pseudo-terminal: \(error)")
            throw ExitStatus.failure.exitCode
        }
        let input = ByteStream(descriptor: terminal?.master.rawValue ?? 0)
        let output = ByteStream(descriptor: terminal?.master.rawValue ?? 1)
        let request: LinkRequest
        do {
            request = try link.request()
        } catch {
            StandardError.report(error.description)
            throw error.exitStatus.exitCode
        }
        let shutdown = Shutdown.shared
        shutdown.install()
        let opening: Result<SerialBridge, ExitStatus> = try await shutdown.run {
            let opened: DeviceLink
            do throws(LinkOpenError) {
                opened = try await request.open()
            } catch {
                return .failure(shutdown.failure(error.description, error.exitStatus))
            }
            do throws(SerialLinkError) {
                return .success(
                    try await SerialBridge.open(on: opened, profile: profile) { value in
                        // A reader that left ends the session (141); any other failure (ENOSPC) ends it as
                        // a failed write (6), never a success.
                        if !output.write(value) { StandardStream.outputFailed(errno: errno, stop: shutdown) }
                    }
                )
            } catch {
                await opened.close()
                return .failure(shutdown.failure("\(opened.name): \(error)", error.exitStatus))
            }
        }
        let bridge = try opening.mapError { $0.exitCode }.get()
        let name = bridge.link.name
        if let terminal { StandardError.report("\(bridge.serial.profile) on \(name): serial port at \(terminal.path)") }
        // The first to end the bridge says how (its own end, a signal); the command then closes the link
        // and the pseudo-terminal, and exits with that status.
        let ending = Latch<(status: ExitStatus, message: String?)>()
        shutdown.onStop { reason in ending.settle((reason.exitStatus, "\(reason)")) }
        let (endless, quiet) = (terminal != nil, Duration.milliseconds(Int(idle * 1000)))
        let security = request.security?.mode
        async let _: Void = {
            switch await bridge.run(input: input, endless: endless, idle: quiet, security: security) {
            case .finished: ending.settle((.success, nil))
            case .inputClosed: ending.settle((.failure, "the pseudo-terminal closed"))
            case .linkLost(let reason): ending.settle((.connectionLost, "\(name): connection lost: \(reason)"))
            case .quietFailed(let error): ending.settle((.connectionLost, "\(name): \(error)"))
            case .sendFailed(let error, let hint): ending.settle((error.exitStatus, "\(name): \(error)\(hint)"))
            }
        }()
        let end = await ending.wait()
        if let message = end.message { StandardError.report(message) }
        await Shutdown.bounded(.seconds(2)) { await bridge.link.close() }
        terminal?.close()
        // What the device sent could not all be written to standard output: not a success.
        let failedWrite = end.status == .success && StandardStream.finalOutputError() != nil
        Foundation.exit(failedWrite ? ExitStatus.writeFailed.rawValue : end.status.rawValue)
    }
}
