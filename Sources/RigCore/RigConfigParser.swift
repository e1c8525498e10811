import BLEHost
import BLELinux
import BLEWire
import Foundation
import PicoAnalysis
import PicoLink
import TOMLKit

/// Reads and checks a rig config (TOML) before anything starts: every problem is reported, each with
/// its file, line and key, and the config is usable only when there are none.
///
/// ```toml
/// [rig]
/// name = "bench-3"
/// journal = "bench-3.sqlite"      # relative to this file; `--journal` overrides
///
/// [[device]]
/// name = "pico-1"
/// address = "C0:FF:EE:00:00:01"
/// transport = "kernel:hci0"
/// script = "CV.mscr"               # relative to this file
/// every = "10m"                    # or schedule = "once" | "continuous", or at = ["08:00", "20:00"]
///
/// [analysis]                         # optional: how each run is analysed as it ends
/// circuit = "R(Q(RW))"
/// ```
public struct RigConfigParser: Sendable {
    /// Checks a transport other than `sim` and `tty:…`; returns a problem or nil.
    public typealias TransportCheck = @Sendable (String) -> String?

    /// The transports a rig reaches devices over: one of `TransportSpec`'s forms.
    public static let transportSpecCheck: TransportCheck = { transport in
        do throws(ArgumentSyntaxError) {
            _ = try TransportSpec(parsing: transport)
            return nil
        } catch {
            return error.description
        }
    }

    public let transportCheck: TransportCheck
    /// The environment the rig will run in: `password_env` must name a variable set there.
    public let environment: [String: String]
    /// The journal given on the command line (`--journal`), in place of the config's.
    public let journalOverride: String?
    /// Whether `[status] listen` must be free now (`rig --check`); a starting rig finds out by listening.
    public let checksListenAddress: Bool

    public init(
        transportCheck: @escaping TransportCheck = transportSpecCheck,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        journalOverride: String? = nil,
        checksListenAddress: Bool = false
    ) {
        self.transportCheck = transportCheck
        self.environment = environment
        self.journalOverride = journalOverride
        self.checksListenAddress = checksListenAddress
    }

    /// Reads `path` and checks it.
    public func parse(file path: String) throws(ConfigProblems) -> RigConfig {
        let text = try TOMLDocument.read(path, what: "the config")
        return try parse(text: text, file: path)
    }

    /// Checks `text`, named `file` in messages; scripts are read relative to `file`'s folder.
    public func parse(text: String, file: String) throws(ConfigProblems) -> RigConfig {
        let document = try TOMLDocument(text: text, file: file)
        let table = document.table
        var reader = document.reader(file: file)
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        reader.unknownKeys(in: table, table: "", allowed: ["rig", "device", "status", "forward", "analysis"])
        let rig = reader.table(table, "rig", required: true)
        let name = rig.flatMap { reader.string($0, table: "rig", key: "name", required: true) } ?? ""
        if !name.isEmpty, !Self.isName(name) {
            reader.problem(table: "rig", key: "name", "\"\(name)\" is not a name (letters, digits, . _ -; 1 to 64)")
        }
        let journal =
            rig.flatMap { reader.string($0, table: "rig", key: "journal") } ?? (name.isEmpty ? "" : "\(name).sqlite")
        if let rig { reader.unknownKeys(in: rig, table: "rig", allowed: ["name", "journal"]) }

        let fleet = FleetConfigParser(
            folder: folder,
            environment: environment,
            checksListenAddress: checksListenAddress
        )
        let status = reader.table(table, "status", required: false).flatMap { fleet.status($0, reader: &reader) }
        let forward = reader.table(table, "forward", required: false).flatMap { fleet.forward($0, reader: &reader) }

        var analysis: AnalysisSettings? = AnalysisSettings()
        if let table = reader.table(table, "analysis", required: false) {
            analysis = AnalysisTableReader.read(table, table: "analysis", base: analysis, reader: &reader)
        }

        var devices: [(index: Int, device: DeviceConfig)] = []
        guard let entries = table["device"] else {
            reader.problem(table: "", key: "", "no [[device]] table: a rig needs at least one device")
            throw ConfigProblems(problems: reader.problems)
        }
        guard let array = entries.array else {
            reader.problem(table: "device", key: "", "device must be an array of tables ([[device]]), not a table")
            throw ConfigProblems(problems: reader.problems)
        }
        for index in 0..<array.count {
            guard let entry = array[index].table else {
                reader.problem(table: "device", index: index, key: "", "each device must be a table")
                continue
            }
            let parser = DeviceConfigParser(folder: folder, transportCheck: transportCheck, analysis: analysis)
            if let device = parser.parse(entry, index: index, reader: &reader) { devices.append((index, device)) }
        }
        // Names as written, whether or not the rest of their table is good: every problem at once.
        var seen: Set<String> = []
        for index in 0..<array.count {
            guard let name = array[index].table?["name"]?.string else { continue }
            if !seen.insert(name).inserted {
                reader.problem(table: "device", index: index, key: "name", "another device is named \"\(name)\"")
            }
        }
        let journalPath = journalOverride ?? (journal.hasPrefix("/") ? journal : folder + "/" + journal)
        if let journalOverride, let problem = Self.journalProblem(journalOverride) {
            reader.problems.append(ConfigProblem(file: file, line: nil, key: "--journal", message: problem))
        } else if journalOverride == nil, !journal.isEmpty, let problem = Self.journalProblem(journalPath) {
            reader.problem(table: "rig", key: "journal", problem)
        }
        guard reader.problems.isEmpty else { throw ConfigProblems(problems: reader.problems) }
        var config = RigConfig(name: name, journal: journalPath, devices: devices.map(\.device))
        config.status = status
        config.forward = forward
        config.analysis = analysis
        return config
    }

    /// Why the rig could not write its journal at `path`, or nil: the folder must exist and be
    /// writable (with its search bit), and an existing journal must be a writable regular file.
    public static func journalProblem(_ path: String) -> String? {
        let folder = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isDirectory) else {
            return "\(path): the folder \(folder) does not exist"
        }
        guard isDirectory.boolValue else { return "\(path): \(folder) is not a folder" }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "\(path) is a folder, not a journal" }
            guard access(path, R_OK | W_OK) == 0 else { return "\(path): not writable by this user" }
        } else if access(folder.isEmpty ? "." : folder, W_OK | X_OK) != 0 {
            return "\(path): the folder \(folder) is not writable by this user"
        }
        return nil
    }

    /// Letters, digits, `.`, `_` and `-`, 1 to 64 characters.
    static func isName(_ text: String) -> Bool {
        (1...64).contains(text.count)
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }
    }

    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }
}
