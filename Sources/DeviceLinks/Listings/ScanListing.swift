public import BLEHost
public import BLEWire
import PicoLink
import Synchronization

/// A scan's devices as people and programs read them: the reports merged into a `DiscoveryTable`,
/// a JSON line for a device when it first matches (and once more when a device first listed without
/// a name gets one: its scan response usually carries it), and an aligned table of the matches.
/// Safe to feed from the thread that delivers the reports while another reads it.
public final class ScanListing: Sendable {
    private let state: Mutex<State>

    private struct State {
        var table: DiscoveryTable
        /// Devices whose JSON line already carried a name.
        var listedWithName: Set<BluetoothAddress> = []
    }

    /// An empty listing of the devices `filter` matches.
    public init(filter: ScanFilter) {
        state = Mutex(State(table: DiscoveryTable(filter: filter)))
    }

    /// Merges one report and returns the JSON line to print for it, if any: one when the device
    /// matches for the first time, and one more when a device first listed without a name gets one;
    /// nothing for RSSI and other updates.
    @discardableResult
    public func add(_ advertisement: HCIAdvertisement) -> String? {
        state.withLock { state in
            guard let (device, change) = state.table.add(advertisement) else { return nil }
            let named = device.name != nil
            switch change {
            case .matched: break
            case .updated where named && !state.listedWithName.contains(device.address): break
            default: return nil
            }
            if named { state.listedWithName.insert(device.address) }
            return Self.jsonLine(device)
        }
    }

    /// The devices that matched, in the order they first did.
    public var matched: [DiscoveredDevice] { state.withLock { $0.table.matched } }
    /// Every device seen, matching or not.
    public var trackedCount: Int { state.withLock { $0.table.count } }

    /// The matching devices, a row each under a header: address, type, name, RSSI (right-aligned),
    /// services by name; each line ends with a newline.
    public static func table(_ devices: [DiscoveredDevice]) -> String {
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
                line += (column == 3 ? padding + cell : cell + padding) + "  "
            }
            text += line + row[4] + "\n"
        }
        return text
    }

    /// `public`, `random`, `public-id` or `random-id`.
    public static func addressType(_ type: BluetoothAddress.AddressType) -> String {
        switch type {
        case .public: "public"
        case .random: "random"
        case .publicIdentity: "public-id"
        case .randomIdentity: "random-id"
        }
    }

    /// The name of a service in the table: a short one for the serial services hcipico knows, the
    /// Bluetooth SIG's for an assigned UUID (`180F` → Battery, as `gatt services` names it), else the UUID.
    public static func serviceName(_ uuid: BluetoothUUID) -> String { knownServiceName(uuid) ?? uuid.description }

    /// The name `serviceName` gives, or nil for a UUID nobody named.
    public static func knownServiceName(_ uuid: BluetoothUUID) -> String? {
        switch uuid {
        case .lairdVSPService: "Laird VSP"
        case .hm10Service: "HM-10"
        case .nordicUARTService: "Nordic UART"
        default: uuid.knownName
        }
    }

    /// The short names a user may give for a serial service (`vsp`, `hm10`, `nus`).
    public static let serviceAliases: [String: BluetoothUUID] = [
        "vsp": .lairdVSPService, "hm10": .hm10Service, "nus": .nordicUARTService,
    ]

    /// One device as one JSON object on one line, keys in a fixed order (address first), absent
    /// values as null, byte strings as lowercase hex.
    public static func jsonLine(_ device: DiscoveredDevice) -> String {
        let string = JSONText.quoted
        func hex(_ bytes: [UInt8]) -> String {
            string(bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined())
        }
        func list(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }
        let fields: [(String, String)] = [
            ("address", string(device.address.description)),
            ("addressType", string(addressType(device.address.type))),
            ("name", device.name.map(string) ?? "null"),
            ("rssi", device.rssi.map { "\($0)" } ?? "null"),
            ("services", list(device.services.map { string($0.description) })),
            ("serviceNames", list(device.services.map { knownServiceName($0).map(string) ?? "null" })),
            (
                "manufacturerData",
                list(
                    device.manufacturerData.map { entry in
                        let company = AssignedNumbers.company(entry.companyID).map(string) ?? "null"
                        return "{\"companyID\":\(entry.companyID),\"company\":\(company),\"data\":\(hex(entry.data))}"
                    }
                )
            ),
            (
                "serviceData",
                list(device.serviceData.map { "{\"uuid\":\(string($0.uuid.description)),\"data\":\(hex($0.data))}" })
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
