/// What the file sinks write about a run before its data: one `key: value` per fact, from the run's
/// `RunProvenance` when the caller has one, else what `RunInfo` says (device, run, title, start).
/// Unknown facts read `n/a`; values are kept to one line.
enum ProvenanceFields {
    static func fields(_ provenance: RunProvenance?, run: RunInfo) -> [(key: String, value: String)] {
        guard let provenance else {
            return [
                ("device", run.device), ("run", String(run.run)), ("title", run.title),
                ("start_utc", run.startTime.isFinite ? UTCTime.iso8601(run.startTime) : "n/a"),
            ].map { ($0, oneLine($1)) }
        }
        let address = provenance.address.map { address in
            provenance.addressType.map { "\(address) (\($0))" } ?? address
        }
        let fields: [(String, String?)] = [
            ("tool", provenance.toolVersion),
            ("device", provenance.device),
            ("address", address),
            ("transport", provenance.transport),
            ("firmware", provenance.firmware),
            ("serial", provenance.serialNumber),
            ("script", provenance.scriptName),
            ("script_sha256", provenance.scriptSHA256),
            ("run", String(provenance.deviceRun)),
            ("run_id", provenance.runID.uuidString.lowercased()),
            ("title", provenance.title),
            ("start_utc", UTCTime.iso8601(provenance.startTime)),
            ("link", provenance.link),
        ]
        let found = provenance.foundAtConnect.map { [("found_at_connect", $0)] } ?? []
        return (fields + found).map { ($0, oneLine($1 ?? "n/a")) }
    }

    /// `# key: value` lines.
    static func commentLines(_ provenance: RunProvenance?, run: RunInfo) -> String {
        fields(provenance, run: run).map { "# \($0.key): \($0.value)\n" }.joined()
    }

    /// Control characters (line breaks among them) become spaces.
    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}
