import ArgumentParser
import BLEHost
import BLELinux
import BLEWire
import DeviceLinks
import Foundation
import Terminal

/// `hcipico adapters`: the kernel's Bluetooth adapters, one a line: name, address, up or down; or,
/// with a user-space transport, what the controller there says about itself.
struct Adapters: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the kernel's Bluetooth adapters, or describe the controller a --transport reaches.",
        discussion: """
            With the kernel transport (the default): one line per adapter, name, address, up or down. \
            With user:hciN, serial:DEV[@BAUD] or tcp:HOST:PORT: hcipico initialises the controller and \
            prints its address, HCI version, manufacturer, ACL buffers and scanning commands. \
            Exits with \(ExitStatus.noBluetooth.rawValue) when the kernel has no Bluetooth, \
            \(ExitStatus.noPermission.rawValue) without the permission to ask, \
            \(ExitStatus.noAdapter.rawValue) when there is no adapter at all, \
            \(ExitStatus.connectionLost.rawValue) when the transport fails, \
            \(ExitStatus.timeout.rawValue) when the controller does not answer.
            """
    )

    @Option(help: "How to reach the controller: \(TransportSpec.acceptedForms) (default kernel).")
    var transport: String?

    func validate() throws { _ = try spec() }

    private func spec() throws -> TransportSpec {
        do {
            return try TransportSpec.resolve(transport, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        let spec = try spec()
        guard case .kernel(let only) = spec else { return try await describe(spec) }
        var adapters: [HCIAdapterInfo]
        do {
            adapters = try HCIAdapters.list()
        } catch {
            StandardError.report(error.message)
            throw error.exitStatus.exitCode
        }
        if let only {
            adapters = adapters.filter { $0.name == only }
            guard !adapters.isEmpty else {
                StandardError.report("no Bluetooth adapter \(only); list them with 'hcipico adapters'")
                throw ExitStatus.noAdapter.exitCode
            }
        }
        guard !adapters.isEmpty else {
            StandardError.report("no Bluetooth adapter found")
            throw ExitStatus.noAdapter.exitCode
        }
        for adapter in adapters { print(adapter) }
    }

    /// Initialises the controller behind a user-space transport and prints what it reported.
    private func describe(_ spec: TransportSpec) async throws {
        do throws(LinkOpenError) {
            let info = try await ControllerProbe.describe(spec, logger: ReportLogHandler.logger)
            print(info.summary(transport: "\(spec)"))
        } catch {
            StandardError.report(error.description)
            throw error.exitStatus.exitCode
        }
    }
}
