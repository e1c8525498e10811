import ArgumentParser
import BLELinux

/// `hcipico adapters`: the kernel's Bluetooth adapters, one a line: name, address, up or down.
struct Adapters: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the kernel's Bluetooth adapters (name, address, up or down).",
        discussion: """
            Exits with \(ExitStatus.noBluetooth.rawValue) when the kernel has no Bluetooth, \
            \(ExitStatus.noPermission.rawValue) without the permission to ask, \
            \(ExitStatus.noAdapter.rawValue) when there is no adapter at all.
            """
    )

    func run() throws {
        let adapters: [HCIAdapterInfo]
        do {
            adapters = try HCIAdapters.list()
        } catch {
            StandardError.report(error.message)
            throw error.exitStatus.exitCode
        }
        guard !adapters.isEmpty else {
            StandardError.report("no Bluetooth adapter found")
            throw ExitStatus.noAdapter.exitCode
        }
        for adapter in adapters { print(adapter) }
    }
}
