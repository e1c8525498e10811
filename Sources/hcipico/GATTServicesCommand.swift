import ArgumentParser
import BLEHost
import DeviceLinks

/// `hcipico gatt DEVICE services`: the tree of services, characteristics and descriptors.
struct GATTServicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "services",
        abstract: "Discover and print every service, characteristic and descriptor, with handles and names.",
        discussion: """
            One line per attribute, indented: services (UUID, name, handle range; secondary services, \
            which only an include reaches, are marked), the services each includes (UUID, name, range, \
            declaration handle), characteristics (UUID, name, properties, declaration and value handles; \
            the value of Device Name and the Device Information strings), descriptors (UUID, name, \
            handle). With --json, one JSON object per line: {"type":"service"|"include"|"characteristic"\
            |"descriptor", "uuid", "name", handles …}; services carry "primary".
            """
    )

    @OptionGroup var link: LinkOptions

    @Flag(help: "One JSON object per line instead of the indented tree.")
    var json = false

    func run() async throws {
        let json = self.json
        try await link.withClient("discovery") { link throws(GATTError) in
            let profile = try await link.client.discoverProfile()
            await GATTProfileListing.list(profile, json: json, readingTextOn: link.client) { ValueText.emit($0) }
        }
    }
}
