import ArgumentParser
import BLELinux
import BLEWire
import Foundation
import PicoLink

/// `hcipico connect sim`: connect, print the version, run one script, show it live and write the sinks.
struct ConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect to an EmStat Pico, run a MethodSCRIPT and record its data.",
        discussion: """
            DEVICE is a Bluetooth address (AA:BB:CC:DD:EE:FF; --random for a random address), reached \
            through the kernel's L2CAP socket (--transport kernel, the default) or through hcipico's own \
            HCI host (--transport user:hci0 | serial:DEV[@BAUD] | tcp:HOST:PORT, or HCIPICO_TRANSPORT); \
            or 'sim', a simulated EmStat Pico in this process (real time; --fast for as fast as possible). \
            Ctrl-C aborts the run with Z; what was received is kept and marked incomplete. Exit status: \
            0 complete, 3 device error, 4 connection lost, 5 timeout, 10 no Bluetooth in the kernel, \
            11 no adapter, 12 adapter down, 13 no permission, 14 busy, 64 bad input, 130 interrupted.
            """
    )

    @Argument(help: "The device: a Bluetooth address (AA:BB:CC:DD:EE:FF) or 'sim'.")
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

    @Flag(help: "Simulator: run as fast as possible instead of in real time.")
    var fast = false

    @Option(help: "A MethodSCRIPT file to run.")
    var script: String?

    @Option(help: "Run the built-in example: \(Technique.allCases.map(\.rawValue).joined(separator: ", ")).")
    var technique: Technique?

    @Option(help: "Write one CSV row per value here.")
    var csv: String?

    @Option(help: "Write JSON Lines here.")
    var jsonl: String?

    @Option(help: "Write an SVG plot here.")
    var svg: String?

    @Flag(help: "Do not print the table of packages.")
    var quiet = false

    func validate() throws {
        if script != nil && technique != nil { throw ValidationError("choose one of --script and --technique") }
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be in (0, 3600] seconds") }
        if device != "sim" { _ = try radioTarget() }
        if device == "sim" && btsnoop != nil { throw ValidationError("--btsnoop captures a radio link, not 'sim'") }
    }

    /// The address and transport of a radio device, checked before any socket is opened.
    private func radioTarget() throws -> (address: BluetoothAddress, transport: TransportSpec) {
        do {
            let address = try BluetoothAddress(parsing: device, type: random ? .random : .public)
            var spec = try TransportSpec.resolve(transport, environment: ProcessInfo.processInfo.environment)
            if let adapter {
                let name = try HCIAdapterName(parsing: adapter)
                guard case .kernel = spec else {
                    throw ValidationError("--adapter goes with the kernel transport; give user:\(adapter) instead")
                }
                spec = .kernel(adapter: name)
            }
            return (address, spec)
        } catch let error as ArgumentSyntaxError {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        let (text, title) = try loadScript()
        let picoScript: PicoScript
        do {
            picoScript = try PicoScript(text)
        } catch {
            Self.fail("\(script ?? title): \(error)")
            throw ExitStatus.badInput.exitCode
        }
        let sinks = try openSinks()
        let session: PicoSession
        var radio: RadioConnection?
        var simulator: SimulatorConnection?
        if device == "sim" {
            do {
                simulator = try await SimulatorConnection.open(fast: fast)
                session = simulator!.session
            } catch {
                Self.fail("cannot connect to \(device): \(error)")
                throw ExitStatus.connectionLost.exitCode
            }
        } else {
            let target = try radioTarget()
            do {
                radio = try await RadioConnection.open(
                    address: target.address,
                    transport: target.transport,
                    timeout: .milliseconds(Int(timeout * 1000)),
                    btsnoop: btsnoop
                )
                session = radio!.session
            } catch {
                Self.fail(error.description)
                throw error.status.exitCode
            }
        }
        defer { simulator?.close() }
        do {
            try await perform(on: session, script: picoScript, title: title, sinks: sinks)
        } catch {
            await radio?.close()
            throw error
        }
        await radio?.close()
    }

    /// Prints the version, runs the script with the live display and the sinks, and maps how it ended.
    private func perform(
        on session: PicoSession,
        script picoScript: PicoScript,
        title: String,
        sinks: [any SampleSink]
    )
        async throws
    {
        do {
            let version = try await session.version()
            print("\(version.device) \(version.firmware)")
            fflush(nil)
        } catch {
            Self.fail("no version reply: \(error)")
            throw ExitStatus.connectionLost.exitCode
        }
        let interruption = RunInterruption()
        let signal = InterruptSignal {
            interruption.interrupt("interrupted (Ctrl-C)")
            Task { try? await session.abort() }
        }
        defer { signal.cancel() }
        let recorder = RunRecorder(sinks: sinks, interruption: interruption)
        let display = LiveDisplay(showTable: !quiet)
        let end: RunEnd
        do {
            let run = try await session.run(picoScript, title: title)
            end = try await recorder.record(run) { display.show($0) }
        } catch let error as SinkError {
            Self.fail("\(error)")
            throw ExitStatus.failure.exitCode
        } catch {
            Self.fail("\(error)")
            throw ExitStatus.connectionLost.exitCode
        }
        display.finish()
        try finish(end, recorder: recorder, interruption: interruption)
    }

    private func finish(_ end: RunEnd, recorder: RunRecorder, interruption: RunInterruption) throws {
        let written = [csv, jsonl, svg].compactMap { $0 }
        if !written.isEmpty { FileHandle.standardError.write(Data("wrote \(written.joined(separator: ", "))\n".utf8)) }
        if end.complete { return }
        Self.fail("run incomplete: \(end.reason ?? "cut short") after \(end.packages) packages")
        if interruption.reason != nil { throw ExitStatus.interrupted.exitCode }
        if !recorder.deviceErrors.isEmpty { throw ExitStatus.deviceError.exitCode }
        throw ExitStatus.connectionLost.exitCode
    }

    private func loadScript() throws -> (text: String, title: String) {
        if let script {
            guard let data = FileManager.default.contents(atPath: script) else {
                Self.fail("cannot read \(script)")
                throw ExitStatus.badInput.exitCode
            }
            return (String(decoding: data, as: UTF8.self), URL(fileURLWithPath: script).lastPathComponent)
        }
        let technique = technique ?? .cv
        return (technique.script, technique.rawValue)
    }

    private func openSinks() throws -> [any SampleSink] {
        var sinks: [any SampleSink] = []
        do {
            if let csv { sinks.append(try CSVSink(path: csv)) }
            if let jsonl { sinks.append(try JSONLinesSink(path: jsonl)) }
        } catch {
            Self.fail("\(error)")
            throw ExitStatus.badInput.exitCode
        }
        if let svg { sinks.append(SVGSink(path: svg)) }
        return sinks
    }

    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("hcipico: \(message)\n".utf8))
    }
}

/// The built-in example scripts.
enum Technique: String, ExpressibleByArgument, CaseIterable {
    case cv, lsv, ca, swv, dpv, eis

    var file: String {
        switch self {
        case .cv: "CV.mscr"
        case .lsv: "LSV_10k.mscr"
        case .ca: "CA.mscr"
        case .swv: "SWV.mscr"
        case .dpv: "DPV.mscr"
        case .eis: "EIS.mscr"
        }
    }

    var script: String { EmbeddedExamples.scripts[file] ?? "" }
}
