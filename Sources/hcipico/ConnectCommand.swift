import ArgumentParser
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
            or 'sim' (sim:pico), a simulated EmStat Pico in this process (real time; --fast for as fast as possible). \
            Ctrl-C aborts the run with Z; what was received is kept and marked incomplete. Exit status: \
            0 complete, 3 device error, 4 connection lost, 5 timeout, 10 no Bluetooth in the kernel, \
            11 no adapter, 12 adapter down, 13 no permission, 14 busy, 64 bad input, 130 interrupted.
            """
    )

    @OptionGroup var link: LinkOptions

    @OptionGroup var tuning: LinkTuningOptions

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

    @Flag(help: "Print to standard error how long the link took to open and the first sample to arrive.")
    var timing = false

    func validate() throws {
        if script != nil && technique != nil { throw ValidationError("choose one of --script and --technique") }
        if case .simulator(let kind) = try link.target(), kind != .pico {
            throw ValidationError("connect runs MethodSCRIPT: sim:\(kind.rawValue) is not an EmStat Pico")
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
        var clock = ConnectTiming()
        let opened: DeviceLink
        let session: PicoSession
        do {
            (opened, session) = try await link.openPico()
            clock.linkOpened()
        } catch {
            Self.fail(error.description)
            throw error.status.exitCode
        }
        let statistics = await tuning.apply(to: opened)
        do {
            try await perform(on: session, script: picoScript, title: title, sinks: sinks, timing: &clock)
        } catch {
            if timing { StandardError.report(clock.summary) }
            statistics?.finish(opened)
            await opened.close()
            throw error
        }
        if timing { StandardError.report(clock.summary) }
        statistics?.finish(opened)
        await opened.close()
    }

    /// Prints the version, runs the script with the live display and the sinks, and maps how it ended.
    private func perform(
        on session: PicoSession,
        script picoScript: PicoScript,
        title: String,
        sinks: [any SampleSink],
        timing: inout ConnectTiming
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
            end = try await recorder.record(run) { event in
                timing.observe(event)
                display.show(event)
            }
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
