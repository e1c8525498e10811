import ArgumentParser
import BLEHost
import BLELinux
import BLEWire
import Foundation

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
        let hci: any HCITransport
        do {
            hci = try spec.openHCITransport()
        } catch {
            StandardError.report(error.message)
            throw error.exitStatus.exitCode
        }
        let host = HCIHost(transport: hci)
        let info: HCIControllerInfo
        do throws(HCIHostError) {
            info = try await host.start()
        } catch {
            await host.shutdown()
            StandardError.report("\(spec): \(error)")
            throw error.exitStatus.exitCode
        }
        await host.shutdown()
        print(Self.describe(info, transport: spec))
    }

    static func describe(_ info: HCIControllerInfo, transport: TransportSpec) -> String {
        let source =
            switch info.bufferSource {
            case .leReadBufferSizeV2: "LE Read Buffer Size v2"
            case .leReadBufferSizeV1: "LE Read Buffer Size"
            case .sharedReadBufferSize: "shared with BR/EDR"
            }
        let manufacturer = String(info.manufacturer, radix: 16, uppercase: true)
        return [
            "\(transport)  \(info.publicAddress)",
            "  HCI version \(coreVersion(info.hciVersion)), manufacturer 0x\(String(repeating: "0", count: max(0, 4 - manufacturer.count)) + manufacturer)"
                + (AssignedNumbers.company(info.manufacturer).map { " (\($0))" } ?? ""),
            "  own address \(info.ownAddress) (\(info.ownAddress.type == .random ? "static random" : "public"))",
            "  ACL buffers \(info.aclPacketCount) × \(info.aclDataLength) bytes (\(source))",
            "  scanning \(info.extendedScanning ? "extended" : "legacy"), connecting \(info.extendedConnect ? "extended" : "legacy")",
        ].joined(separator: "\n")
    }

    /// The Core specification version an HCI version number stands for (Assigned Numbers §2.1).
    static func coreVersion(_ version: UInt8) -> String {
        let names = [
            "1.0b", "1.1", "1.2", "2.0", "2.1", "3.0", "4.0", "4.1", "4.2", "5.0", "5.1", "5.2", "5.3", "5.4", "6.0",
        ]
        return Int(version) < names.count ? "\(names[Int(version)]) (\(version))" : "\(version)"
    }
}
