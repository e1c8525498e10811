import ArgumentParser
import Coordination
import DeviceLinks

/// `hcipico simulate --socket PATH`: a simulated EmStat Pico in a process of its own, so that a host can
/// be killed and started again while the device goes on (`--sim-socket PATH` on the commands reaches it).
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Serve a simulated EmStat Pico on a Unix socket, until SIGINT or SIGTERM.",
        discussion: """
            Each connection is a link to the same device: a script it runs goes on when the host goes away \
            (as an instrument's does), for the next connection to find. Reach it with 'hcipico connect sim \
            --sim-socket PATH' (console likewise). --trace reports every change of its cell and every write \
            it receives on standard error.
            """
    )

    @Option(help: "The Unix socket to serve on (a socket already there is replaced).")
    var socket: String

    @Flag(help: "Run as fast as possible instead of in real time.")
    var fast = false

    @Flag(help: "Report the cell's changes (sim: cell on at 0.5 V) on standard error.")
    var trace = false

    func run() async throws {
        let server: SimulatorServer
        do {
            server = try SimulatorServer(
                path: socket,
                settings: SimulatorSettings(fast: fast, trace: trace),
                logger: ReportLogHandler.logger
            )
        } catch {
            StandardError.report(error.description)
            throw ExitStatus.badInput.exitCode
        }
        let shutdown = Shutdown.shared
        shutdown.install()
        server.start()
        StandardError.report("serving a simulated EmStat Pico on \(socket)")
        _ = try? await shutdown.run { await Latch<Void>().waitUnlessCancelled() }
        server.stop()
    }
}
