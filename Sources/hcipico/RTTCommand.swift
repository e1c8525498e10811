import ArgumentParser
import BLEDiagnostics
import BLEHost
import BLEWire
import Foundation

/// `hcipico rtt DEVICE`: write → notification round trips against an echo-style VSP peripheral.
///
/// (Sendable: a parsed command is an immutable value, so its work task may carry it.)
struct RTTCommand: AsyncParsableCommand, @unchecked Sendable {
    static let configuration = CommandConfiguration(
        commandName: "rtt",
        abstract: "Time write → notification round trips on an echo-style Laird VSP peripheral.",
        discussion: """
            Connects, finds the Laird VSP service, subscribes to TX, then writes COUNT payloads of SIZE \
            bytes to RX without response, each after the echo of the one before arrived on TX. Prints \
            the round trips' median, p95, minimum and maximum, and this process's CPU time per round \
            trip (CLOCK_PROCESS_CPUTIME_ID and /proc/self/stat, every thread; and by thread name, from \
            /proc/self/task). The device must echo what \
            is written to RX (a serial bridge in loopback, or the test peer's echo mode); an EmStat Pico \
            does not. Exit status: 0 done, 3 a notification was not the echo, 4 connection lost, \
            5 timeout, 10–14 as for connect, 64 bad input.
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
        if try link.target().isSimulator {
            throw ValidationError("rtt needs an echo peripheral; the simulators do not echo")
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
        let opened: ConnectedDevice
        do {
            opened = try await link.open()
        } catch {
            return shutdown.failure(error.description, error.status)
        }
        let connected = ContinuousClock.now
        var status = ExitStatus.success
        do {
            let report = try await measure(on: opened, connect: connected - started)
            print(json ? report.json : report.text)
        } catch let failure as ExitCode {
            status = shutdown.reason?.exitStatus ?? ExitStatus(rawValue: failure.rawValue) ?? .failure
        } catch {
            status = shutdown.failure("\(error)", .failure)
        }
        await opened.close()
        return status
    }

    private func measure(on opened: ConnectedDevice, connect: Duration) async throws -> RTTReport {
        let client = opened.client
        let discovering = ContinuousClock.now
        let marks = RTTMarks()
        let probe: GATTEchoProbe
        do throws(GATTError) {
            guard let service = try await client.discoverPrimaryServices(uuid: .lairdVSPService).first else {
                throw GATTError.notFound("\(opened.name) has no Laird VSP service")
            }
            let characteristics = try await client.discoverCharacteristics(of: service)
            guard let tx = characteristics.first(where: { $0.uuid == .lairdVSPTx }),
                let rx = characteristics.first(where: { $0.uuid == .lairdVSPRx })
            else { throw GATTError.notFound("the VSP service of \(opened.name) lacks TX or RX") }
            probe = try GATTEchoProbe(
                client: client,
                writeHandle: rx.valueHandle,
                payloadSize: size,
                count: count,
                warmup: warmup,
                boundaries: { begin in marks.record(begin) }
            )
            _ = try await client.subscribe(to: tx, kind: .notifications, ended: { probe.fail($0) }) { value in
                probe.receive(value)
            }
        } catch {
            StandardError.report("\(opened.name): \(error)")
            if case .invalidArgument = error { throw ExitStatus.badInput.exitCode }
            throw ExitStatus.connectionLost.exitCode
        }
        let discover = ContinuousClock.now - discovering
        let result: GATTEchoResult
        do {
            result = try await probe.run(stallTimeout: .milliseconds(Int(echoTimeout * 1000)))
        } catch {
            StandardError.report("\(opened.name): \(error)")
            switch error {
            case .stalled: throw ExitStatus.timeout.exitCode
            case .mismatch: throw ExitStatus.deviceError.exitCode
            case .gatt: throw ExitStatus.connectionLost.exitCode
            }
        }
        let measured = try marks.measured()
        return RTTReport(
            device: opened.name,
            connect: connect,
            mtu: client.mtu,
            discover: discover,
            size: size,
            result: result,
            wall: measured.wall,
            cpuNanoseconds: measured.cpuAfter.clockNanoseconds - measured.cpuBefore.clockNanoseconds,
            statNanoseconds: measured.cpuAfter.statNanoseconds.flatMap { after in
                measured.cpuBefore.statNanoseconds.map { after - $0 }
            },
            threads: measured.threads
        )
    }
}
