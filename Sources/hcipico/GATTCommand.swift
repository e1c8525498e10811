import ArgumentParser

/// `hcipico gatt DEVICE services|read|write|subscribe|mtu`: explore and drive any GATT device.
struct GATTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Explore and drive any BLE device's GATT server: services, read, write, subscribe, mtu.",
        discussion: """
            Written either way round: 'hcipico gatt DEVICE [link options] services' or \
            'hcipico gatt services DEVICE [link options]'. DEVICE is an address (with --random, --adapter, \
            --transport as for connect) or a simulator: sim:pico, sim:calculator. An attribute is a handle \
            written 0x… (as 'services' prints it) or a UUID (2A00, or the 128-bit form); a UUID must name \
            exactly one characteristic or descriptor. Exit status: 0 done, 3 the device answered with an ATT \
            error (its name is printed), 4 connection lost, 5 timeout, 10–14 as for connect, 64 bad \
            arguments, 130 interrupted.
            """,
        subcommands: [
            GATTServicesCommand.self, GATTReadCommand.self, GATTWriteCommand.self, GATTSubscribeCommand.self,
            GATTMTUCommand.self,
        ]
    )

    /// The subcommand names, for `reordered(_:)`.
    static var subcommandNames: Set<String> {
        Set(configuration.subcommands.compactMap { $0.configuration.commandName })
    }

    /// Moves the subcommand of `gatt DEVICE [options] SUBCOMMAND [arguments]` right after `gatt`, the
    /// order the argument parser reads; any other command line is returned as it is.
    static func reordered(_ arguments: [String]) -> [String] {
        guard arguments.count >= 3, arguments[0] == configuration.commandName,
            !subcommandNames.contains(arguments[1]), !arguments[1].hasPrefix("-"),
            let index = arguments.indices.dropFirst(2).first(where: { subcommandNames.contains(arguments[$0]) })
        else { return arguments }
        var result = arguments
        let name = result.remove(at: index)
        result.insert(name, at: 1)
        return result
    }
}
