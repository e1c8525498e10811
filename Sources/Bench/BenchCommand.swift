import ArgumentParser
import Foundation

// `swift run -c release Bench [SUITE ...] [--json] [--duration S] [--minutes M] [--echo-round-trips N]
// [--echo-rounds N] [--uart-rounds N] [--uart-seconds S]`: runs the named suites (all but
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
    cellOffSuite,
    SyncCostBench.suite,
    H4Bench.suite,
    PairingBench.suite,
    ArrivalsBench.suite,
    SerialBench.suite,
    RigBench.suite,
    ForwardBench.suite,
    HostFloodBench.suite,
    SoakBench.suite,
    MethodsBench.suite,
    AnalysisBench.suite,
    UARTBench.suite,
    UARTBench.cpuSuite,
    APIBench.suite,
    SignalsBench.suite,
]
/// Suites that run only when named.
let onlyWhenNamed: Set<String> = [SoakBench.suite.name, UARTBench.cpuSuite.name]

/// The options the suites read (set once, before any suite runs).
enum BenchOptions {
    /// `--duration`: seconds the e2e suite runs (default 20).
    nonisolated(unsafe) static var duration = 20.0
    /// `--minutes`: minutes the soak runs (default 30).
    nonisolated(unsafe) static var minutes = 30.0
    /// `--echo-round-trips`: round trips per round of the echo suite (default 20,000).
    nonisolated(unsafe) static var echoRoundTrips = 20_000
    /// `--echo-rounds`: rounds of the echo suite (default 9).
    nonisolated(unsafe) static var echoRounds = 9
    /// `--uart-rounds`: runs over each path in the uart suites' CPU comparison (default 5).
    nonisolated(unsafe) static var uartRounds = 5
    /// `--uart-seconds`: seconds of real-time chronoamperometry per run there (default 10).
    nonisolated(unsafe) static var uartSeconds = 10
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

    @Option(help: "Round trips per round of the echo suite (fewer for Tools/tcg-profile.sh).")
    var echoRoundTrips = 20_000

    @Option(help: "Rounds of the echo suite.")
    var echoRounds = 9

    @Option(help: "Runs over each path in the uart suites' CPU comparison.")
    var uartRounds = 5

    @Option(help: "Seconds of real-time chronoamperometry (500 packages each) per run in that comparison.")
    var uartSeconds = 10

    func validate() throws {
        let unknown = names.filter { name in !suites.contains { $0.name == name } }
        guard unknown.isEmpty else {
            throw ValidationError(
                "unknown suite \(unknown.joined(separator: ", ")); known: \(suites.map(\.name).joined(separator: ", "))"
            )
        }
        guard duration > 0, minutes > 0 else { throw ValidationError("--duration and --minutes must be above 0") }
        guard echoRoundTrips >= 1, echoRounds >= 1 else {
            throw ValidationError("--echo-round-trips and --echo-rounds must be at least 1")
        }
        guard uartRounds >= 1, uartSeconds >= 1 else {
            throw ValidationError("--uart-rounds and --uart-seconds must be at least 1")
        }
    }

    func run() async throws {
        if let child = ProcessInfo.processInfo.environment[SignalsBench.childVariable] {
            await SignalsBench.child(child)
        }
        BenchOptions.duration = duration
        BenchOptions.minutes = minutes
        BenchOptions.echoRoundTrips = echoRoundTrips
        BenchOptions.echoRounds = echoRounds
        BenchOptions.uartRounds = uartRounds
        BenchOptions.uartSeconds = uartSeconds
        for suite in suites where names.contains(suite.name) || (names.isEmpty && !onlyWhenNamed.contains(suite.name)) {
            try await suite.run(json)
        }
    }
}
