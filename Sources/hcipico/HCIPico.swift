import ArgumentParser

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
            ExportCommand.self,
        ]
    )

    static func main() async {
        await main(GATTCommand.reordered(Array(CommandLine.arguments.dropFirst())))
    }
}
