import ArgumentParser
import BLEDiagnostics
import BLEHost
import BLEWire
import Coordination
import DeviceLinks
import DeviceRuns
import Foundation
import PicoLink

/// `hcipico rtt DEVICE`: write → notification round trips against an echo-style serial peripheral.
///
/// (Sendable: a parsed command is an immutable value, so its work task may carry it.)
struct RTTCommand: AsyncParsableCommand, @unchecked Sendable {
    static let configuration = CommandConfiguration(
        commandName: "rtt",
        abstract: "Time write → notification round trips on an echo-style serial peripheral.",
        discussion: """
            Connects, finds the serial service (Laird VSP, HM-10 or Nordic UART, in that order), \
            subscribes to what it notifies, then writes COUNT payloads of SIZE bytes without response, \
            each after the echo of the one before arrived (in one notification or several: an HM-10 \
            forwards its UART in pieces of at most 20 bytes). Prints the round trips' median, p95, \
            minimum and maximum, and this process's CPU time per round trip (CLOCK_PROCESS_CPUTIME_ID \
            and /proc/self/stat, every thread; and by thread name, from /proc/self/task). The device \
            must echo what is written (a serial bridge in loopback, the test peer's echo mode, or \
            sim:hm10, whose UART is looped back); an EmStat Pico does not. Exit status: 0 done, 3 a \
            notification was not the echo, 4 connection lost, 5 timeout, 10–14 as for connect, 64 bad \
            input.
            """
    )

    @OptionGroup var link: LinkOptions

    @Option(help: "Round trips to time.")
    var count = 200

    @Option(help: "Untimed round trips first (the timed ones then run on warm code paths).")
    var warmup = 20

    @Option(help: "Payload bytes per write (4 to ATT_MTU − 3).")
    var size = 10

    @Option(help: "Seconds to wait for one echo before giving up.")
    var echoTimeout: Double = 5

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        guard (1...1_000_000).contains(count) else { throw ValidationError("--count must be in 1...1000000") }
        guard (0...100_000).contains(warmup) else { throw ValidationError("--warmup must be in 0...100000") }
        guard (4...514).contains(size) else { throw ValidationError("--size must be in 4...514") }
        guard echoTimeout > 0 && echoTimeout <= 600 else { throw ValidationError("--echo-timeout must be in (0, 600]") }
        if case .simulator(let kind) = try link.target(), kind != .hm10 {
            throw ValidationError("rtt needs an echo peripheral: sim:\(kind.rawValue) does not echo, sim:hm10 does")
        }
    }

    func run() async throws {
        let shutdown = Shutdown.shared
        shutdown.install()
        let status = try await shutdown.run { await self.session() }
        if status != .success { throw status.exitCode }
    }

    /// Connect, measure, print the report, close; the status to exit with.
    private func session() async -> ExitStatus {
        let shutdown = Shutdown.shared
        let started = ContinuousClock.now
        let opened: DeviceLink
        do {
            opened = try await link.open()
        } catch {
            return shutdown.failure(error.description, error.exitStatus)
        }
        let connected = ContinuousClock.now
        var status = ExitStatus.success
        let timing = EchoTiming(
            size: size,
            count: count,
            warmup: warmup,
            echoTimeout: .milliseconds(Int(echoTimeout * 1000))
        )
        do {
            let report = try await timing.measure(on: opened, connect: connected - started)
            print(json ? report.json : report.text)
        } catch {
            let message = if case .unmarked = error { error.description } else { "\(opened.name): \(error)" }
            status = shutdown.failure(message, Self.status(error))
        }
        await opened.close()
        return status
    }

    /// 64 for a payload the link cannot carry, 5 for an echo that never came, 3 for one that was not
    /// the payload, 1 for a timing that did not mark its round trips, else 4 (the link failed).
    private static func status(_ error: EchoTimingError) -> ExitStatus {
        switch error {
        case .gatt(.invalidArgument): .badInput
        case .probe(.stalled): .timeout
        case .probe(.mismatch): .deviceError
        case .unmarked: .failure
        case .noSerialService, .gatt, .probe(.gatt): .connectionLost
        }
    }
}
