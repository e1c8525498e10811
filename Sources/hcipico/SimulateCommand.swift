import ArgumentParser
import Coordination
import DeviceLinks
import Foundation
import PicoSimulator
import Terminal

/// `hcipico simulate`: a simulated EmStat Pico in a process of its own, on a Unix socket (as a Pico
/// behind its Bluetooth module, so that a host can be killed and started again while the device goes on)
/// or on a pseudo-terminal (as a Pico on a USB-UART cable).
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Serve a simulated EmStat Pico on a Unix socket or a pseudo-terminal, until SIGINT or SIGTERM.",
        discussion: """
            --socket PATH: each connection is a link to the same device: a script it runs goes on when the \
            host goes away (as an instrument's does), for the next connection to find. Reach it with \
            'hcipico connect sim --sim-socket PATH' (console likewise).

            --pty PATH: the device's UART on a pseudo-terminal, PATH a symbolic link to it as \
            /dev/serial/by-id/… is to a cable's port. Reach it with 'hcipico connect tty:PATH'. A host at \
            another rate than --baud hears noise, as on a real line. SIGUSR1 pulls the cable (the terminal \
            closes and PATH goes away), SIGUSR2 plugs it in again under a new /dev/pts/N; the device goes \
            on in between. --paced keeps to the line rate of --baud.

            --trace reports every change of its cell on standard error.
            """
    )

    @Option(help: "The Unix socket to serve on (a socket already there is replaced).")
    var socket: String?

    @Option(help: "The symbolic link to the pseudo-terminal to serve on (a link already there is replaced).")
    var pty: String?

    @Option(help: "With --pty: the device's UART rate.")
    var baud = SerialPortSpec.picoBaudRate

    @Flag(help: "With --pty: keep to the line rate of --baud in both directions.")
    var paced = false

    @Option(help: "With --pty: after SIGUSR2, the link is this path instead (a cable back on another port).")
    var replugAs: String?

    @Flag(help: "Run as fast as possible instead of in real time.")
    var fast = false

    @Flag(help: "Report the cell's changes (sim: cell on at 0.5 V) on standard error.")
    var trace = false

    @Option(help: "The device's serial number (its answer to i).")
    var serialNumber: String?

    func validate() throws {
        guard (socket == nil) != (pty == nil) else { throw ValidationError("give one of --socket and --pty") }
        if pty == nil, paced || baud != SerialPortSpec.picoBaudRate {
            throw ValidationError("--baud and --paced go with --pty")
        }
        if let pty, !pty.hasPrefix("/") { throw ValidationError("--pty \(pty): give an absolute path") }
        if let replugAs {
            guard pty != nil, replugAs.hasPrefix("/") else {
                throw ValidationError("--replug-as goes with --pty and takes an absolute path")
            }
        }
    }

    func run() async throws {
        let settings = SimulatorSettings(fast: fast, trace: trace, serialNumber: serialNumber)
        let shutdown = Shutdown.shared
        if let pty {
            try await serve(pty: pty, settings: settings, shutdown: shutdown)
            return
        }
        let server: SimulatorServer
        do {
            server = try SimulatorServer(path: socket ?? "", settings: settings, logger: ReportLogHandler.logger)
        } catch {
            StandardError.report(error.description)
            throw ExitStatus.badInput.exitCode
        }
        shutdown.install()
        server.start()
        StandardError.report("serving a simulated EmStat Pico on \(socket ?? "")")
        _ = try? await shutdown.run { await Latch<Void>().waitUnlessCancelled() }
        server.stop()
    }

    private func serve(pty path: String, settings: SimulatorSettings, shutdown: Shutdown) async throws {
        let device = SimulatedPicoPTY(
            pico: SimulatedPicos.makeUARTDevice(settings, trace: trace ? ReportLogHandler.logger : nil),
            linkPath: path,
            baudRate: baud,
            paced: paced
        )
        let slave: String
        do {
            slave = try device.plug()
        } catch {
            StandardError.report("\(path): \(error)")
            throw ExitStatus.badInput.exitCode
        }
        shutdown.install()
        // The cable: SIGUSR1 pulls it, SIGUSR2 plugs it in again, through the stop path's signal thread.
        let replugAs = self.replugAs
        shutdown.onSignal(SIGUSR1) {
            device.unplug()
            StandardError.report("sim: unplugged")
        }
        shutdown.onSignal(SIGUSR2) {
            do {
                StandardError.report("sim: plugged in on \(try device.plug(as: replugAs))")
            } catch {
                StandardError.report("sim: cannot plug in: \(error)")
            }
        }
        StandardError.report(
            "serving a simulated EmStat Pico on \(path) (\(slave), \(baud) baud\(paced ? ", paced" : ""))"
        )
        _ = try? await shutdown.run { await Latch<Void>().waitUnlessCancelled() }
        shutdown.onSignal(SIGUSR1, nil)
        shutdown.onSignal(SIGUSR2, nil)
        device.stop()
    }
}
