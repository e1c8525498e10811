import ArgumentParser

// `swift run -c release Bench [SUITE ...] [--json] [--duration S] [--minutes M]`: runs the named suites (all but
// `soak` when none is named); `Bench --help` lists them.

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
    EchoBench.suite,
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

/// The options the suites read (set once, before any suite runs).
enum BenchOptions {
    /// `--duration`: seconds the e2e suite runs (default 20).
    nonisolated(unsafe) static var duration = 20.0
    /// `--minutes`: minutes the soak runs (default 30).
    nonisolated(unsafe) static var minutes = 30.0
}

@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "Bench",
        abstract: "Runs the named benchmark suites (all but soak when none is named).",
        discussion: "suites:\n" + suites.map { "  \($0.name)\t\($0.summary)" }.joined(separator: "\n")
    )

    @Argument(help: "The suites to run.")
    var names: [String] = []

    @Flag(help: "Print each suite's result as JSON.")
    var json = false

    @Option(help: "Seconds the e2e suite runs.")
    var duration: Double = 20

    @Option(help: "Minutes the soak runs.")
    var minutes: Double = 30

    func validate() throws {
        let unknown = names.filter { name in !suites.contains { $0.name == name } }
        guard unknown.isEmpty else {
            throw ValidationError(
                "unknown suite \(unknown.joined(separator: ", ")); known: \(suites.map(\.name).joined(separator: ", "))"
            )
        }
        guard duration > 0, minutes > 0 else { throw ValidationError("--duration and --minutes must be above 0") }
    }

    func run() async throws {
        BenchOptions.duration = duration
        BenchOptions.minutes = minutes
        for suite in suites where names.contains(suite.name) || (names.isEmpty && !onlyWhenNamed.contains(suite.name)) {
            try await suite.run(json)
        }
    }
}
