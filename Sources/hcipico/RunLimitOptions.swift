import ArgumentParser
import PicoLink
import RigCore

/// `--max-current`, `--potential-window` and `--max-run`: limits a run is stopped at (`RunLimits`).
struct RunLimitOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Stop the run (Z, then the cell off) when a current's magnitude passes this, in A with an SI prefix: 1m, 500u.",
            valueName: "AMPERES"
        )
    )
    var maxCurrent: String?

    @Option(
        help: ArgumentHelp(
            "Stop the run when a potential leaves this window, in V: -0.5,1 or -500m,1.2.",
            valueName: "LOW,HIGH"
        )
    )
    var potentialWindow: String?

    @Option(help: ArgumentHelp("Stop the run once it has taken this long: 90s, 10m, 2h.", valueName: "DURATION"))
    var maxRun: String?

    func validate() throws {
        _ = try limits()
    }

    /// The limits asked for; a bad value is a usage error (exit 64).
    func limits() throws(ValidationError) -> RunLimits {
        var limits = RunLimits()
        if let maxCurrent {
            guard let amperes = RunLimits.amount(maxCurrent, unit: "A"), amperes > 0 else {
                throw ValidationError("--max-current \(maxCurrent): not a current (1m, 500u, 0.002)")
            }
            limits.maximumCurrent = amperes
        }
        if let potentialWindow {
            guard let window = RunLimits.window(potentialWindow) else {
                throw ValidationError("--potential-window \(potentialWindow): not LOW,HIGH in volts (-0.5,1)")
            }
            limits.potentialWindow = window
        }
        if let maxRun {
            guard let seconds = DurationText.seconds(maxRun), seconds > 0 else {
                throw ValidationError("--max-run \(maxRun): not a duration (90s, 10m, 2h)")
            }
            limits.longestRun = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        return limits
    }
}
