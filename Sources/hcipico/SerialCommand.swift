import ArgumentParser
import BLEHost
import BLEWire
import Coordination
import DeviceLinks
import Foundation
import PicoLink

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
        let opening: Result<(DeviceLink, SerialLink), ExitStatus> = try await shutdown.run {
            let opened: DeviceLink
            do throws(LinkOpenError) {
                opened = try await request.open()
            } catch {
                return .failure(shutdown.failure(error.description, error.exitStatus))
            }
            do throws(SerialLinkError) {
                let serial = try await SerialLink.open(client: opened.client, profile: profile) { value in
                    if !output.write(value) {
                        // A reader that left ends the session (141); any other failure (ENOSPC) is
                        // recorded, and the session then ends as a failed write (6), never a success.
                        let code = errno
                        if code == EPIPE {
                            shutdown.stop(.outputClosed)
                        } else {
                            StandardStream.outputFailed(errno: code)
                        }
                    }
                }
                return .success((opened, serial))
            } catch {
                await opened.close()
                return .failure(shutdown.failure("\(opened.name): \(error)", error.exitStatus))
            }
        }
        let (opened, serial) = try opening.mapError { $0.exitCode }.get()
        if let terminal { StandardError.report("\(serial.profile) on \(opened.name): serial port at \(terminal.path)") }
        // The first to end the bridge says how (end of input, a signal, a dropped link); the bridge
        // then closes the link and the pseudo-terminal here, and exits with that status.
        let ending = Latch<SerialEnd>()
        shutdown.onStop { reason in ending.settle(SerialEnd(status: reason.exitStatus, message: "\(reason)")) }
        async let _: Void = {
            let reason = await serial.waitUntilClosed()
            ending.settle(SerialEnd(status: .connectionLost, message: "\(opened.name): connection lost: \(reason)"))
        }()
        async let _: Void = {
            if let failed = await bridge(
                input,
                to: serial,
                endless: terminal != nil,
                name: opened.name,
                request: request
            ) {
                ending.settle(failed)
                return
            }
            do {
                try await serial.waitUntilQuiet(for: .milliseconds(Int(idle * 1000)))
                ending.settle(SerialEnd(status: .success))
            } catch {
                ending.settle(SerialEnd(status: .connectionLost, message: "\(opened.name): \(error)"))
            }
        }()
        let end = await ending.wait()
        if let message = end.message { StandardError.report(message) }
        await Shutdown.bounded(.seconds(2)) { await opened.close() }
        terminal?.close()
        // What the device sent could not all be written to standard output: not a success.
        let failedWrite = end.status == .success && StandardStream.finalOutputError() != nil
        Foundation.exit(failedWrite ? ExitStatus.writeFailed.rawValue : end.status.rawValue)
    }

    /// How the bridge ended: the exit status, and what to say first.
    struct SerialEnd: Sendable {
        var status: ExitStatus
        var message: String?
    }

    /// Sends what `input` yields, one chunk at a time, until its end (a pseudo-terminal has none): nil
    /// then; how the bridge ends when a send fails or the pseudo-terminal closes.
    private func bridge(
        _ input: ByteStream,
        to serial: SerialLink,
        endless: Bool,
        name: String,
        request: LinkRequest
    ) async -> SerialEnd? {
        let (events, next) = input.reader()
        for await event in events {
            switch event {
            case .data(let bytes):
                do throws(SerialLinkError) {
                    try await serial.send(bytes)
                } catch {
                    var hint = ""
                    if case .gatt(let refusal) = error {
                        hint = SecurityHint.suffix(for: refusal, mode: request.security?.mode)
                    }
                    return SerialEnd(status: error.exitStatus, message: "\(name): \(error)\(hint)")
                }
                next()
            case .end:
                return endless ? SerialEnd(status: .failure, message: "the pseudo-terminal closed") : nil
            }
        }
        return nil
    }
}
