import BLEHost
import BLEWire
import DeviceLinks
import Foundation
import PicoAnalysis
import PicoLink
import PicoSimulator
import TOMLKit

/// One `[[device]]` entry of a rig config, checked key by key (see `RigConfigParser`).
struct DeviceConfigParser {
    let folder: String
    let transportCheck: RigConfigParser.TransportCheck
    /// The rig's analysis settings (nil: off), which `[device.analysis]` changes for this device.
    var analysis: AnalysisSettings? = AnalysisSettings()

    static let keys: Set<String> = [
        "name", "address", "address_type", "transport", "link", "script", "schedule", "every", "at", "run_timeout",
        "max_failures", "failure_backoff", "realtime", "security", "passkey", "max_current", "potential_window",
        "sim_socket", "sim_cell", "method", "analysis", "serial_number", "search_ports",
    ]

    /// The values of `security` (as the command line's `--security`).
    static let securityModes = ["encrypt", "authenticate", "auto"]

    func parse(_ entry: TOMLTable, index: Int, reader: inout ConfigReader) -> DeviceConfig? {
        let before = reader.problems.count
        let table = "device"
        func problem(_ key: String, _ message: String) { reader.problem(table: table, index: index, key: key, message) }
        let name = reader.string(entry, table: table, index: index, key: "name", required: true)
        if let name {
            if RigConfigParser.isName(name) {
                reader.entryNames[index] = name
            } else {
                problem("name", "\"\(name)\" is not a name (letters, digits, . _ -; 1 to 64)")
            }
        }
        reader.unknownKeys(in: entry, table: table, index: index, allowed: Self.keys)
        let transport = reader.string(entry, table: table, index: index, key: "transport") ?? "kernel"
        let simulated = transport == "sim"
        let onSerialPort = transport.hasPrefix("tty:")
        if onSerialPort {
            do throws(SerialPortSpecError) {
                _ = try SerialPortSpec(parsing: transport)
            } catch {
                problem("transport", error.description)
            }
        } else if !simulated, let message = transportCheck(transport) {
            problem("transport", message)
        }
        let address = reader.string(entry, table: table, index: index, key: "address")
        let addressType = reader.string(entry, table: table, index: index, key: "address_type") ?? "public"
        if !["public", "random"].contains(addressType) {
            problem("address_type", "\"\(addressType)\" is neither public nor random")
        }
        switch (address, simulated || onSerialPort) {
        case (nil, false): problem("address", "missing: a device on a radio needs its address (AA:BB:CC:DD:EE:FF)")
        case (.some, true) where onSerialPort:
            problem("address", "a device on a serial port (transport = \"tty:…\") has no Bluetooth address")
        case (let text?, false) where BluetoothAddress(text) == nil:
            problem("address", "\"\(text)\" is not a Bluetooth address (AA:BB:CC:DD:EE:FF)")
        case (.some, true): problem("address", "a simulated device (transport = \"sim\") has no address")
        default: break
        }
        var link: LinkTuningRequest?
        if let text = reader.string(entry, table: table, index: index, key: "link") {
            if onSerialPort { problem("link", "a serial port has no radio link to tune") }
            do throws(LinkTuningSyntaxError) {
                link = try LinkTuningRequest(parsing: text)
            } catch {
                problem("link", "\(error)")
            }
        }
        let script = loadScript(entry, index: index, reader: &reader)
        let schedule = self.schedule(entry, index: index, reader: &reader)
        let runTimeout = reader.duration(entry, table: table, index: index, key: "run_timeout")
        var limits = RunLimits()
        if let text = reader.string(entry, table: table, index: index, key: "max_current") {
            if let amperes = RunLimits.amount(text, unit: "A"), amperes > 0 {
                limits.maximumCurrent = amperes
            } else {
                problem("max_current", "\"\(text)\" is not a current in amperes (\"1m\", \"500u\")")
            }
        }
        if let text = reader.string(entry, table: table, index: index, key: "potential_window") {
            if let window = RunLimits.window(text) {
                limits.potentialWindow = window
            } else {
                problem("potential_window", "\"\(text)\" is not LOW,HIGH in volts (\"-0.5,1\")")
            }
        }
        let maximumFailures = reader.integer(entry, table: table, index: index, key: "max_failures") ?? 5
        if maximumFailures < 1 { problem("max_failures", "must be 1 or more") }
        let failureBackoff = reader.duration(entry, table: table, index: index, key: "failure_backoff") ?? 300
        let realTime = reader.bool(entry, table: table, index: index, key: "realtime")
        let socket = reader.string(entry, table: table, index: index, key: "sim_socket")
        if socket != nil, !simulated { problem("sim_socket", "only a simulated device (transport = \"sim\") has it") }
        if realTime != nil, !simulated { problem("realtime", "only a simulated device (transport = \"sim\") has it") }
        var cell: CellModel?
        if let name = reader.string(entry, table: table, index: index, key: "sim_cell") {
            if !simulated { problem("sim_cell", "only a simulated device (transport = \"sim\") has it") }
            cell = CellModel(name: name)
            if cell == nil, name != "auto" { problem("sim_cell", "\"\(name)\" is not one of \(CellModel.names)") }
        }
        let security = reader.string(entry, table: table, index: index, key: "security")
        if let security, !Self.securityModes.contains(security) {
            problem("security", "\"\(security)\" is not one of encrypt, authenticate, auto")
        }
        if security != nil, simulated { problem("security", "a simulated device does not pair") }
        if security != nil, onSerialPort { problem("security", "a device on a serial port does not pair") }
        let passkey = reader.integer(entry, table: table, index: index, key: "passkey")
        if let passkey {
            if !(0...999_999).contains(passkey) { problem("passkey", "must be six digits at most (0 to 999999)") }
            if security == nil {
                problem("passkey", "is used only with security = \"encrypt\", \"authenticate\" or \"auto\"")
            }
            if transport.hasPrefix("kernel") {
                problem(
                    "passkey",
                    "the kernel path pairs with Just Works only (the adapter has no input or output without bluetoothd); use hcipico's own host (transport)"
                )
            }
        }
        let serialNumber = reader.string(entry, table: table, index: index, key: "serial_number")
        if let serialNumber, serialNumber.isEmpty || !serialNumber.allSatisfy({ $0.isASCII && !$0.isWhitespace }) {
            problem("serial_number", "\"\(serialNumber)\" is not a serial number (printable ASCII, no spaces)")
        }
        if serialNumber != nil, simulated {
            problem("serial_number", "a simulated device has the serial number the rig gives it (SIM-NAME)")
        }
        let searchPorts = reader.strings(entry, table: table, index: index, key: "search_ports") ?? []
        if !searchPorts.isEmpty {
            if !onSerialPort {
                problem("search_ports", "only a device on a serial port (transport = \"tty:…\") has it")
            }
            if serialNumber == nil { problem("search_ports", "is searched for the device's serial_number: give one") }
            if let relative = searchPorts.first(where: { !$0.hasPrefix("/") }) {
                problem("search_ports", "\"\(relative)\" is not an absolute path")
            }
        }
        var analysis = self.analysis
        if entry["analysis"] != nil, let table = reader.table(entry, "analysis", required: true, parent: "device") {
            analysis = AnalysisTableReader.read(
                table,
                table: "device.analysis",
                index: index,
                base: analysis,
                reader: &reader
            )
        }
        guard reader.problems.count == before, let name, let script, let schedule else { return nil }
        var device = DeviceConfig(
            name: name,
            address: address,
            addressType: addressType,
            transport: transport,
            link: link,
            scriptPath: script.path,
            script: script.script,
            scriptText: script.text,
            schedule: schedule,
            runTimeout: runTimeout,
            limits: limits,
            maximumFailures: maximumFailures,
            failureBackoff: failureBackoff,
            realTime: realTime ?? true,
            simulatorSocket: socket.map { $0.hasPrefix("/") ? $0 : folder + "/" + $0 },
            simulatorCell: cell,
            security: security,
            passkey: passkey.map { UInt32($0) }
        )
        device.analysis = analysis
        device.serialNumber = serialNumber
        device.searchPorts = searchPorts
        return device
    }

    /// The device's script: a file (`script`) or a method (`[device.method]`), one of the two.
    private func loadScript(
        _ entry: TOMLTable,
        index: Int,
        reader: inout ConfigReader
    ) -> (path: String, script: PicoScript, text: String)? {
        if entry["method"] != nil {
            if entry["script"] != nil {
                reader.problem(table: "device", index: index, key: "method", "give script or method, not both")
                return nil
            }
            guard let table = reader.table(entry, "method", required: true, parent: "device"),
                let method = MethodTableReader.read(table, table: "device.method", index: index, reader: &reader),
                let text = try? method.script()
            else { return nil }
            do throws(PicoScriptError) {
                return ("method \(method.technique.rawValue)", try PicoScript(text), text)
            } catch {
                reader.problem(table: "device", index: index, key: "method", "\(error)")
                return nil
            }
        }
        guard
            let path = reader.string(
                entry,
                table: "device",
                index: index,
                key: "script",
                required: true,
                missing: "missing: a script file (script = \"cv.mscr\") or a method table ([device.method])"
            )
        else {
            return nil
        }
        let full = path.hasPrefix("/") ? path : folder + "/" + path
        let text: String
        do {
            guard FileManager.default.fileExists(atPath: full) else {
                reader.problem(table: "device", index: index, key: "script", "cannot read \(full): no such file")
                return nil
            }
            text = try String(contentsOfFile: full, encoding: .utf8)
        } catch {
            reader.problem(
                table: "device",
                index: index,
                key: "script",
                "cannot read \(full): \(RigConfigParser.reason(error))"
            )
            return nil
        }
        do throws(PicoScriptError) {
            return (path, try PicoScript(text), text)
        } catch {
            reader.problem(table: "device", index: index, key: "script", "\(full): \(error)")
            return nil
        }
    }

    private func schedule(_ entry: TOMLTable, index: Int, reader: inout ConfigReader) -> RunSchedule? {
        let given = ["schedule", "every", "at"].filter { entry[$0] != nil }
        guard given.count == 1, let key = given.first else {
            let message =
                given.isEmpty
                ? "missing: say when it runs: schedule = \"once\", \"continuous\" or \"on-demand\", every = \"10m\", or at = [\"08:00\"]"
                : "give one of schedule, every and at, not \(given.joined(separator: " and "))"
            reader.problem(table: "device", index: index, key: given.last ?? "schedule", message)
            return nil
        }
        switch key {
        case "schedule":
            switch reader.string(entry, table: "device", index: index, key: key) {
            case "once": return .once
            case "continuous": return .continuous
            case "on-demand": return .onDemand
            case let text?:
                reader.problem(
                    table: "device",
                    index: index,
                    key: key,
                    "\"\(text)\" is not once, continuous or on-demand (for a period use every = \"10m\")"
                )
                return nil
            case nil: return nil
            }
        case "every":
            return reader.duration(entry, table: "device", index: index, key: key).map(RunSchedule.every)
        default:
            guard let texts = reader.strings(entry, table: "device", index: index, key: key) else { return nil }
            guard !texts.isEmpty else {
                reader.problem(table: "device", index: index, key: key, "needs at least one time of day")
                return nil
            }
            var times: [TimeOfDay] = []
            for text in texts {
                guard let time = TimeOfDay(text) else {
                    reader.problem(table: "device", index: index, key: key, "\"\(text)\" is not a time of day (HH:MM)")
                    return nil
                }
                times.append(time)
            }
            return .daily(times.sorted())
        }
    }
}
