import ArgumentParser
import Logging
import Terminal

/// `--log-level` and `-v`: how much of the diagnostics (swift-log, `LineLogHandler`) reach standard
/// error. The rig logs its life at info; links log what the bearer dropped (warning), and with `-v`
/// the link's events, its security steps and the controller it drives (debug).
struct LogOptions: ParsableArguments {
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "Diagnostics on standard error from this level up (default info).",
            valueName: "level"
        )
    )
    var logLevel: Logger.Level?

    @Flag(name: .shortAndLong, help: "More diagnostics: -v is --log-level debug, -vv trace.")
    var verbose: Int

    func validate() throws {
        if logLevel != nil && verbose > 0 { throw ValidationError("give --log-level or -v, not both") }
    }

    /// The level asked for.
    var level: Logger.Level {
        if let logLevel { return logLevel }
        switch verbose {
        case 0: return .info
        case 1: return .debug
        default: return .trace
        }
    }

    /// Makes `level` the threshold of every logger (swift-log is bootstrapped with `LineLogHandler`
    /// when the program starts).
    func apply() {
        LineLogHandler.threshold.store(LineLogHandler.index(level), ordering: .relaxed)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
