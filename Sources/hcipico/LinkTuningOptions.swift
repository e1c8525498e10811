import ArgumentParser
import BLEDiagnostics
import BLEHost
import DeviceLinks
import DeviceRuns
import RigCore

/// `--link` and `--stats`, shared by every command that holds a device link: add
/// `@OptionGroup var tuning: LinkTuningOptions`, then `let run = tuning.apply(to: link)` once the
/// link is open, `run?.startTuning()` once the data flows, and `await run?.finish(link)` at the end.
struct LinkTuningOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Tune the link after connecting: low-latency (7.5–15 ms), balanced (30–50 ms), power-save (100–200 ms, latency 4), or MIN-MAX[,LATENCY[,TIMEOUT]] in ms; also asks for 251-byte data length and the 2M PHY. Each step's outcome goes to stderr.",
            valueName: "preset|MIN-MAX[,L[,T]]"
        )
    )
    var link: String?

    @Flag(help: "At the end, print the link parameters in force and the notification inter-arrival percentiles.")
    var stats = false

    func validate() throws {
        _ = try request()
    }

    /// The parsed `--link` value (nil without one); a bad value is a usage error (exit 64).
    func request() throws(ValidationError) -> LinkTuningRequest? {
        guard let link else { return nil }
        do throws(LinkTuningSyntaxError) {
            return try LinkTuningRequest(parsing: link)
        } catch {
            throw ValidationError("--link \(error)")
        }
    }

    /// What the options ask for, as a value a command's work task can carry.
    var plan: LinkTuningPlan { LinkTuningPlan(request: try? request(), stats: stats) }

    /// Tunes `link` as asked (see `LinkTuningPlan.apply`).
    func apply(to link: DeviceLink) -> LinkRunStatistics? { plan.apply(to: link) }
}
