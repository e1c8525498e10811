import BLEHost
import BLEWire
import Foundation
import PicoLink
import Synchronization

/// Collects a scan's reports into a `DiscoveryTable` and prints the matching devices: as JSON Lines
/// when each is first seen (and once more when a nameless one's name arrives), or as an aligned table
/// at the end.
final class ScanPrinter: Sendable {
    private let state: Mutex<State>
    private let json: Bool

    struct State {
        var table: DiscoveryTable
        /// Devices whose JSON line already carried a name.
        var printedWithName: Set<BluetoothAddress> = []
    }

    init(filter: ScanFilter, json: Bool) {
        state = Mutex(State(table: DiscoveryTable(filter: filter)))
        self.json = json
    }

    /// Merges one report; with --json prints the line `jsonLine(for:)` gives, at once.
    func add(_ advertisement: HCIAdvertisement) {
        guard json else {
            state.withLock { _ = $0.table.add(advertisement) }
            return
        }
        guard let line = jsonLine(for: advertisement) else { return }
        print(line)
        fflush(nil)
    }

    /// Merges one report and returns the JSON line to print for it, if any: one when the device
    /// matches for the first time, and one more when a device first printed without a name gets one
    /// (its scan response usually carries it); nothing for RSSI and other updates.
    func jsonLine(for advertisement: HCIAdvertisement) -> String? {
        state.withLock { state in
            guard let (device, change) = state.table.add(advertisement) else { return nil }
            let named = device.name != nil
            switch change {
            case .matched: break
            case .updated where named && !state.printedWithName.contains(device.address): break
            default: return nil
            }
            if named { state.printedWithName.insert(device.address) }
            return Self.jsonLine(device)
        }
    }

    var matched: [DiscoveredDevice] { state.withLock { $0.table.matched } }
    var matchedCount: Int { matched.count }
    var trackedCount: Int { state.withLock { $0.table.count } }

    /// The table of matching devices: address, type, name, RSSI, services; nothing when none matched.
    func printTable() {
        let devices = matched
        guard !devices.isEmpty else { return }
        print(Self.table(devices), terminator: "")
        fflush(nil)
    }

    static func table(_ devices: [DiscoveredDevice]) -> String {
        let rows =
            [["ADDRESS", "TYPE", "NAME", "RSSI", "SERVICES"]]
            + devices.map { device in
                [
                    device.address.description, addressType(device.address.type), device.name ?? "-",
                    device.rssi.map { "\($0)" } ?? "-", device.services.map(serviceName).joined(separator: ", "),
                ]
            }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = ""
        for row in rows {
            var line = ""
            for column in 0..<4 {
                let cell = row[column]
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                // RSSI right-aligned, the rest left-aligned.
                line += (column == 3 ? padding + cell : cell + padding) + "  "
            }
            text += line + row[4] + "\n"
        }
        return text
    }

    static func addressType(_ type: BluetoothAddress.AddressType) -> String {
        switch type {
        case .public: "public"
        case .random: "random"
        case .publicIdentity: "public-id"
        case .randomIdentity: "random-id"
        }
    }

    /// The name of a service in the table: a short one for the serial services hcipico knows, the
    /// Bluetooth SIG's for an assigned UUID (`180F` → Battery, as `gatt services` prints it), else the UUID.
    static func serviceName(_ uuid: BluetoothUUID) -> String { knownServiceName(uuid) ?? uuid.description }

    /// The name `serviceName` gives, or nil for a UUID nobody named.
    static func knownServiceName(_ uuid: BluetoothUUID) -> String? {
        switch uuid {
        case .lairdVSPService: "Laird VSP"
        case .hm10Service: "HM-10"
        case .nordicUARTService: "Nordic UART"
        default: uuid.knownName
        }
    }

    /// One JSON object, keys in a fixed order, absent values as null.
    static func jsonLine(_ device: DiscoveredDevice) -> String {
        let string = JSONText.quoted
        func hex(_ bytes: [UInt8]) -> String {
            string(bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined())
        }
        let fields: [(String, String)] = [
            ("address", string(device.address.description)),
            ("addressType", string(addressType(device.address.type))),
            ("name", device.name.map(string) ?? "null"),
            ("rssi", device.rssi.map { "\($0)" } ?? "null"),
            ("services", "[" + device.services.map { string($0.description) }.joined(separator: ",") + "]"),
            (
                "serviceNames",
                "[" + device.services.map { knownServiceName($0).map(string) ?? "null" }.joined(separator: ",") + "]"
            ),
            (
                "manufacturerData",
                "["
                    + device.manufacturerData.map { entry in
                        let company = AssignedNumbers.company(entry.companyID).map(string) ?? "null"
                        return "{\"companyID\":\(entry.companyID),\"company\":\(company),\"data\":\(hex(entry.data))}"
                    }
                    .joined(separator: ",") + "]"
            ),
            (
                "serviceData",
                "["
                    + device.serviceData.map { "{\"uuid\":\(string($0.uuid.description)),\"data\":\(hex($0.data))}" }
                    .joined(separator: ",") + "]"
            ),
            ("txPower", device.txPower.map { "\($0)" } ?? "null"),
            ("appearance", device.appearance.map { "\($0)" } ?? "null"),
            ("appearanceName", device.appearance.flatMap(AssignedNumbers.appearance).map(string) ?? "null"),
            ("connectable", "\(device.connectable)"),
            ("extended", "\(device.extended)"),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
