/// One thing wrong with a rig config, located: `rig.toml:14: device "pico-2": every: "10x" is not a
/// duration (30s, 10m, 2h, 1h30m)`.
public struct ConfigProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; nil when the problem is the file as a whole or a key that is missing from its table
    /// (then `line` is the table's header line when known).
    public var line: Int?
    /// Where in the document: `rig.journal`, `device "pico-2".every`, `device[3]`.
    public var key: String
    public var message: String

    public init(file: String, line: Int?, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return key.isEmpty ? "\(place): \(message)" : "\(place): \(key): \(message)"
    }
}

/// Every problem found in a config (never just the first).
public struct ConfigProblems: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ConfigProblem]

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
