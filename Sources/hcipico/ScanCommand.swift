import ArgumentParser
import BLEHost
import BLELinux
import BLEWire
import Coordination
import DeviceLinks
import Foundation
import Terminal

/// `hcipico scan`: the devices around, by default those advertising the Laird VSP service.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan for BLE devices; by default those advertising the EmStat Pico's Laird VSP service.",
        discussion: """
            One row per device, merged by address (a scan response adds its name), printed when the \
            scan ends: address, address type, name, RSSI, services. --json prints one JSON object per \
            device instead, as soon as it is first seen, and once more when a device first seen without \
            a name gets one. Filters combine: --service (instead of the \
            default VSP service; vsp, hm10, nus or a UUID), --name (a case-sensitive prefix), --address; \
            --all drops the service filter. Runs through the kernel's raw HCI socket (--transport kernel, \
            the default; root or CAP_NET_RAW) or hcipico's own HCI host (user:hciN, serial:DEV[@BAUD], \
            tcp:HOST:PORT, or HCIPICO_TRANSPORT). Whatever scan hcipico enabled it disables again, also \
            on a signal (Ctrl-C, SIGTERM, SIGHUP), which ends the scan and prints what was found: exit \
            status 0 when the scan had no time limit (--timeout 0), the signal's (130, 143, 129) when it \
            cut a timed scan short. Exit status: 0 done (even when nothing matched), 4 transport lost \
            (what was found is printed), 5 no answer from the controller, 10 no Bluetooth in the kernel, \
            11 no adapter, 12 adapter down, 13 no permission, 14 busy (another scan runs), 64 bad input, \
            129/130/143 a signal.
            """
    )

    @Flag(help: "Every device, not only those advertising the VSP service.")
    var all = false

    @Option(help: "Seconds to scan; 0 scans until Ctrl-C.")
    var timeout: Double = 10

    @Flag(
        help: "JSON Lines: one object per device when it is first seen, and once more when its name arrives later."
    )
    var json = false

    @Option(help: "Only devices advertising this service: vsp, hm10, nus, or a UUID (180D, 569A1101-…).")
    var service: [String] = []

    @Option(help: "Only devices whose name starts with this (case-sensitive).")
    var name: String?

    @Option(help: "Only the device with this address (AA:BB:CC:DD:EE:FF).")
    var address: String?

    @Flag(help: "Passive scan: no scan requests, so no scan responses.")
    var passive = false

    @Flag(help: "Ask the controller for every advertisement, not one per device (duplicates update the RSSI).")
    var duplicates = false

    @Option(help: "The adapter for the kernel path (hciN; default: the first that is up).")
    var adapter: String?

    @Option(help: "How to reach the controller: \(TransportSpec.acceptedForms) (default kernel).")
    var transport: String?

    func validate() throws {
        guard timeout >= 0 && timeout <= 86_400 else {
            throw ValidationError("--timeout must be in [0, 86400] seconds")
        }
        if all && !service.isEmpty { throw ValidationError("choose --all or --service, not both") }
        _ = try filter()
        _ = try resolvedTransport()
    }

    /// The filter the options give, checked before any socket is opened.
    func filter() throws -> ScanFilter {
        var services: [BluetoothUUID] = []
        for text in service {
            guard let uuid = ScanListing.serviceAliases[text.lowercased()] ?? BluetoothUUID(text) else {
                throw ValidationError(
                    "invalid --service '\(text)': give vsp, hm10, nus, a 16- or 32-bit UUID (180D, 0x180D) or a 128-bit one (569A1101-B87F-490C-92CB-11BA5EA5167C)"
                )
            }
            services.append(uuid)
        }
        if services.isEmpty && !all { services = [.lairdVSPService] }
        var device: BluetoothAddress?
        if let address {
            do {
                device = try BluetoothAddress(parsing: address, type: .public)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        if let name, name.isEmpty { throw ValidationError("--name needs a non-empty prefix") }
        return ScanFilter(services: services, namePrefix: name, address: device)
    }

    /// The transport: --transport, else HCIPICO_TRANSPORT, else the kernel; --adapter picks the kernel's.
    func resolvedTransport() throws -> TransportSpec {
        do {
            return try TransportSpec.resolve(transport, adapter: adapter)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let scanner = DeviceScanner(transport: try resolvedTransport())
        let parameters = ScanParameters(active: !passive, filterDuplicates: !duplicates)
        let duration: Duration? = timeout == 0 ? nil : .milliseconds(Int(timeout * 1000))
        let listing = ScanListing(filter: try filter())
        let json = self.json
        let shutdown = Shutdown.shared
        shutdown.install()
        let scanned = try await shutdown.run { () async -> Result<DeviceScanner.Outcome, LinkOpenError> in
            do throws(LinkOpenError) {
                return .success(
                    try await scanner.scan(parameters, for: duration) { report in
                        // With --json a device is printed as it is found; else the table at the end.
                        guard let line = listing.add(report), json else { return }
                        ValueText.emit(line + "\n")
                    }
                )
            } catch {
                return .failure(error)
            }
        }
        if !json, !listing.matched.isEmpty { ValueText.emit(ScanListing.table(listing.matched)) }
        let outcome: DeviceScanner.Outcome
        switch scanned {
        case .success(let scan): outcome = scan
        case .failure(let error):
            StandardError.report(error.description)
            throw Self.status(error).exitCode
        }
        for warning in outcome.warnings { StandardError.report(warning) }
        if listing.matched.isEmpty { StandardError.report(nothingFound(listing)) }
        switch outcome.ending {
        case .duration: return
        case .interrupted:
            if duration != nil { throw (shutdown.reason?.exitStatus ?? .interrupted).exitCode }
        case .transportLost(let reason):
            StandardError.report("the transport went away during the scan (\(reason)); what was found is above")
            throw ExitStatus.connectionLost.exitCode
        }
    }

    /// The exit status of a scan that could not start; Command Disallowed means a scan already runs.
    static func status(_ error: LinkOpenError) -> ExitStatus {
        if case .host(.commandFailed(_, let status)) = error.cause, status == .commandDisallowed { return .busy }
        return error.exitStatus
    }

    private func nothingFound(_ listing: ScanListing) -> String {
        let seen = listing.trackedCount
        let what =
            all ? "no device" : service.isEmpty ? "no device advertising the Laird VSP service" : "no matching device"
        return "\(what) found (\(seen) device\(seen == 1 ? "" : "s") seen)" + (all ? "" : "; --all shows every device")
    }
}
