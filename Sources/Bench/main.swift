// `swift run -c release Bench [SUITE ...] [--json] [--duration S] [--minutes M]`: runs the named suites (all but
// `soak` when none is named).

/// One benchmark suite: a name and a function that runs it and prints its table (or JSON).
struct BenchSuite: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (_ json: Bool) async throws -> Void
}

let suites: [BenchSuite] = [
    simulatorSuite,
    WireBench.suite,
    DecodeBench.suite,
    stackSuite,
    endToEndSuite,
    SyncCostBench.suite,
    H4Bench.suite,
    PairingBench.suite,
    ArrivalsBench.suite,
    SerialBench.suite,
    RigBench.suite,
    ForwardBench.suite,
    HostFloodBench.suite,
    SoakBench.suite,
]
/// Suites that run only when named.
let onlyWhenNamed: Set<String> = [SoakBench.suite.name]

let arguments = Array(CommandLine.arguments.dropFirst())
let json = arguments.contains("--json")
var names: [String] = []
var skipNext = false
for argument in arguments {
    if skipNext {
        skipNext = false
    } else if argument == "--duration" || argument == "--minutes" {
        skipNext = true
    } else if !argument.hasPrefix("--") {
        names.append(argument)
    }
}
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: Bench [SUITE ...] [--json] [--duration S (e2e)] [--minutes M (soak)]\n\nsuites:")
    for suite in suites { print("  \(suite.name)\t\(suite.summary)") }
} else {
    let unknown = names.filter { name in !suites.contains { $0.name == name } }
    if !unknown.isEmpty {
        print(
            "Bench: unknown suite \(unknown.joined(separator: ", ")); known: \(suites.map(\.name).joined(separator: ", "))"
        )
    } else {
        for suite in suites
        where names.contains(suite.name) || (names.isEmpty && !onlyWhenNamed.contains(suite.name)) {
            try await suite.run(json)
        }
    }
}
