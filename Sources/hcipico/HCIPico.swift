import ArgumentParser
import Coordination
import Terminal

#if canImport(Glibc)
import Glibc
#endif

/// `hcipico`: drive EmStat Pico potentiostats and other BLE serial devices over raw HCI and L2CAP.
@main
struct HCIPico: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hcipico",
        abstract: "Drive EmStat Pico potentiostats and other BLE serial devices over raw HCI and L2CAP.",
        version: "0.1.0",
        subcommands: [
            DecodeCommand.self, ScanCommand.self, ConnectCommand.self, ConsoleCommand.self, GATTCommand.self,
            SerialCommand.self, Adapters.self, RTTCommand.self, RigCommand.self, RunsCommand.self,
            ExportCommand.self, PairCommand.self, BondsCommand.self, SimulateCommand.self, MethodsCommand.self,
            CheckCommand.self, AnalyzeCommand.self, PortsCommand.self, MCPCommand.self,
        ]
    )

    static func main() async {
        // A write to an output that lost its reader fails with EPIPE where it is made, and that code
        // decides (standard error: dropped; standard output: the command ends as 141); a command that
        // talks to a device catches the signal itself (`Shutdown`).
        signal(SIGPIPE, SIG_IGN)
        LineLogHandler.bootstrap()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, let suggestion = suggestion(for: first) {
            StandardError.report("'\(first)' is not a command; did you mean '\(suggestion)'? (see 'hcipico --help')")
            Self.exit(withError: ExitStatus.badInput.exitCode)
        }
        do {
            var command = try parseAsRoot(GATTCommand.reordered(arguments))
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            end(with: error)
        }
        // The command succeeded, but what it printed may not have been written (standard output full).
        if StandardStream.finalOutputError() != nil { Self.exit(withError: ExitStatus.writeFailed.exitCode) }
    }

    /// Ends the process as ArgumentParser's `exit(withError:)` would (help and `--version` on standard
    /// output, exit 0; a usage error's message on standard error, exit 64; a command's exit status as
    /// it is), but with the message written through `StandardError`, which never blocks: ArgumentParser
    /// writes it with stdio, which waits for ever on a standard error that nobody reads.
    static func end(with error: any Error) -> Never {
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if !message.isEmpty {
            if code == .success {
                print(message)
                if StandardStream.finalOutputError() != nil { Glibc.exit(ExitStatus.writeFailed.rawValue) }
            } else {
                StandardError.write(message + "\n")
            }
        }
        Glibc.exit(code.rawValue)
    }

    /// The subcommand `word` was probably meant to be (`TextDistance.suggestion`); none for an option.
    static func suggestion(for word: String) -> String? {
        guard !word.hasPrefix("-") else { return nil }
        return TextDistance.suggestion(for: word, among: configuration.subcommands.map { $0._commandName })
    }
}
