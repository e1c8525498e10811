import ArgumentParser
import Foundation
import PicoLink

/// `hcipico console DEVICE`: type a MethodSCRIPT, an empty line runs it; a signal (Ctrl-C, SIGTERM,
/// SIGHUP) aborts a run with `Z`, disconnects and quits with its status; end of input quits.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Interactive MethodSCRIPT console: type a script, an empty line runs it, Ctrl-C aborts."
    )

    @OptionGroup var link: LinkOptions

    func validate() throws {
        if case .simulator(let kind) = try link.target(), kind != .pico {
            throw ValidationError("console speaks MethodSCRIPT: sim:\(kind.rawValue) is not an EmStat Pico")
        }
    }

    func run() async throws {
        let opened: DeviceLink
        let session: PicoSession
        do {
            (opened, session) = try await link.openPico()
        } catch {
            ConnectCommand.fail(error.description)
            throw error.status.exitCode
        }
        await converse(with: session)
        await opened.close()
    }

    private func converse(with session: PicoSession) async {
        guard let version = try? await session.version() else {
            ConnectCommand.fail("no version reply")
            return
        }
        print("\(version.device) \(version.firmware). Type a script; an empty line runs it; Ctrl-C aborts.")
        let running = RunningFlag()
        let shutdown = Shutdown.shared
        shutdown.install()
        // A stop aborts a run with Z and ends the console; at the prompt it disconnects and exits.
        shutdown.onStop { reason in
            Task {
                if running.value { _ = try? await session.abort() }
                await Shutdown.bounded(.seconds(2)) { session.close() }
                Foundation.exit(reason.exitStatus.rawValue)
            }
        }
        var lines: [String] = []
        prompt(lines)
        while let line = readLine(strippingNewline: true) {
            if !line.isEmpty {
                lines.append(line)
                prompt(lines)
                continue
            }
            guard !lines.isEmpty else {
                prompt(lines)
                continue
            }
            let text = lines.joined(separator: "\n")
            lines = []
            running.value = true
            await runOne(text, session: session)
            running.value = false
            prompt(lines)
        }
    }

    private func runOne(_ text: String, session: PicoSession) async {
        let display = LiveDisplay(showTable: true, rowsPerSecond: 1000)
        do {
            let run = try await session.run(text: text, title: "console")
            for try await event in run.events {
                display.show(event)
                if case .ended(let aborted, let packages) = event {
                    print(aborted ? "aborted after \(packages) packages" : "done: \(packages) packages")
                }
            }
        } catch {
            FileHandle.standardError.write(Data("hcipico: \(error)\n".utf8))
        }
    }

    private func prompt(_ lines: [String]) {
        FileHandle.standardError.write(Data((lines.isEmpty ? "mscript> " : "     ..> ").utf8))
    }
}
