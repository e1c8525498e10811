import DeviceLinks
import Foundation
import Logging
import PicoLink
import PicoSimulator

/// `Bench uart`: an EmStat Pico on a serial port.
///
/// 1. Line use: a simulated Pico on a pseudo-terminal that keeps to the line rate of 230400 baud (8N1:
///    23,040 bytes/s) runs a 1 ms chronoamperometry on its virtual clock, so it always has a package to
///    send and the line is the bottleneck; the host reads it through `UARTChannel` and `PicoSession`.
///    The figure is the bytes received per second, between the first package and the last, against
///    23,040 — with every package checked in sequence (`SequenceCheckSink`).
/// 2. CPU per package against the Bluetooth path, in one run, at a rate the line carries: the simulated
///    Pico serves in real time in another process (`hcipico simulate --pty --paced`, and `hcipico
///    simulate --socket`), so that this process's CPU time is the host's alone; the same 2 ms
///    chronoamperometry (500 packages a second, 10 s by default) runs over each in turn, five times by
///    default; the medians are compared.
/// 3. A rig's cable pulled mid-run and plugged in again (`UARTCableBench`).
enum UARTBench {
    static let suite = BenchSuite(name: "uart", summary: "a Pico on a UART: line use at 230400 baud, CPU vs BLE") {
        json in try await run(json: json)
    }

    /// The CPU comparison alone (`--uart-rounds`, `--uart-seconds`): what `make bench-uart-kernel` runs
    /// in the kernel tier's guest, where the pseudo-terminal is Linux's own.
    static let cpuSuite = BenchSuite(name: "uart-cpu", summary: "a Pico on a UART: CPU per package vs BLE only") {
        json in
        let cpu = try await cpuPerPackage(rounds: BenchOptions.uartRounds, seconds: BenchOptions.uartSeconds)
        if json {
            print("{\"suite\":\"uart-cpu\",\(cpu.json)}")
        } else {
            cpu.printTable()
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(json: Bool) async throws {
        let line = try await lineUse()
        let cpu = try await cpuPerPackage(rounds: BenchOptions.uartRounds, seconds: BenchOptions.uartSeconds)
        let cable = try await UARTCableBench.run(binary: try BesideBench.hcipico())
        let pulls = cable.map(\.ended).sorted()
        let restarts = cable.map(\.restartedAfterBackoff).sorted()
        if json {
            print(
                "{\"suite\":\"uart\",\"line_bytes_per_s\":\(Int(line.bytesPerSecond)),\"line_use\":"
                    + "\(String(format: "%.4f", line.bytesPerSecond / 23_040)),\"packages\":\(line.packages),\"lost\":0,"
                    + "\(cpu.json),\"pull_to_incomplete_s\":\(pulls),\"plug_to_run_after_backoff_s\":\(restarts)}"
            )
            return
        }
        print("uart: line use at 230400 baud (a paced simulated Pico on a pseudo-terminal, 1 ms CA)")
        print(
            String(
                format: "  %d packages, %.0f bytes/s of 23,040 = %.1f %% of the line, 0 lost",
                line.packages,
                line.bytesPerSecond,
                line.bytesPerSecond / 23_040 * 100
            )
        )
        cpu.printTable()
        print("uart: a rig's cable pulled mid-run and plugged in again, \(cable.count) times")
        for round in cable {
            print(
                String(
                    format:
                        "  pull → incomplete on disk %.3f s; plug → next run %.3f s after the backoff in force (%.1f s)",
                    round.ended,
                    round.restartedAfterBackoff,
                    round.backoff
                )
            )
        }
    }

    static func lineUse() async throws -> (bytesPerSecond: Double, packages: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-uart-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = SimulatedPicoConfiguration.fast
        configuration.receiveBufferCapacity = 64 * 1024
        configuration.uartBytesPerSecond = nil
        let device = SimulatedPicoPTY(pico: SimulatedPico(configuration: configuration), paced: true)
        defer { device.stop() }
        let slave = try device.plug()
        let opener = LinkOpener(logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
        let opened = try await opener.openPico(.serialPort(SerialPortSpec(path: slave)))
        defer { opened.session.close() }
        guard let channel = opened.session.channel as? UARTChannel else { throw Failure(description: "not a UART") }
        let seconds = 4
        let script = try BenchPico.chronoamperometry(seconds: seconds)
        let run = try await opened.session.run(script, title: "line")
        let sink = SequenceCheckSink(interval: 1e-3)
        try sink.begin(run.info)
        var first: (ContinuousClock.Instant, Int)?
        var last: (ContinuousClock.Instant, Int)?
        var packages = 0
        for try await event in run.events {
            guard case .package(let package) = event else { continue }
            try sink.write(package)
            packages += 1
            let now = (ContinuousClock.now, channel.bytesReceived)
            if first == nil { first = now }
            last = now
        }
        guard packages == seconds * 1000, sink.problems == 0, let first, let last else {
            throw Failure(description: "uart: \(packages) packages, \(sink.problems) sequence problems")
        }
        let elapsed = first.0.duration(to: last.0).inSeconds
        return (Double(last.1 - first.1) / elapsed, packages)
    }

    /// CPU per package over each path (ns), all of it and the user-space part.
    struct CPUComparison {
        var uart: Double
        var ble: Double
        var uartUser: Double
        var bleUser: Double

        /// The figures as JSON members (no braces).
        var json: String {
            "\"uart_cpu_ns_per_package\":\(Int(uart)),\"ble_cpu_ns_per_package\":\(Int(ble)),"
                + "\"uart_over_ble\":\(String(format: "%.3f", uart / ble)),"
                + "\"uart_over_ble_user\":\(String(format: "%.3f", uartUser / bleUser))"
        }

        func printTable() {
            print("uart: host CPU per package, the device in another process, same run")
            print("                        all     user space")
            print(String(format: "  UART (tty)            %6.0f  %6.0f ns", uart, uartUser))
            print(String(format: "  Bluetooth (GATT/VSP)  %6.0f  %6.0f ns", ble, bleUser))
            print(String(format: "  UART / Bluetooth      %6.2f  %6.2f", uart / ble, uartUser / bleUser))
        }
    }

    /// This process's CPU time so far, and its user-space part (`getrusage`), in seconds.
    enum CPUUse {
        static func now() -> (total: Double, user: Double) {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
            let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
            return (user + system, user)
        }
    }

    /// The CPU comparison's package interval (ms): 500 packages a second, which both paths carry in real
    /// time (about 15 kB/s, two thirds of the line at 230400 baud).
    static let cpuInterval = 2

    /// `rounds` real-time runs of `seconds` over each path, alternating.
    static func cpuPerPackage(rounds: Int, seconds: Int) async throws -> CPUComparison {
        let binary = try BesideBench.hcipico()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-uart-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = directory.appendingPathComponent("pico").path
        let socket = directory.appendingPathComponent("pico.sock").path
        var simulators: [Process] = []
        defer {
            for process in simulators {
                process.terminate()
                process.waitUntilExit()
            }
        }
        for arguments in [["--pty", pty, "--paced"], ["--socket", socket]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["simulate"] + arguments
            process.standardError = FileHandle.nullDevice
            try process.run()
            simulators.append(process)
        }
        for path in [pty, socket] {
            var waited = 0
            while !FileManager.default.fileExists(atPath: path), waited < 200 {
                try await Task.sleep(for: .milliseconds(25))
                waited += 1
            }
        }
        let opener = LinkOpener(logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
        let uart = try await opener.openPico(.serialPort(SerialPortSpec(path: pty)))
        let ble = try await opener.openPico(
            .simulator(.pico),
            options: LinkOpener.Options(simulator: SimulatorSettings(fast: false, socket: socket))
        )
        defer {
            uart.session.close()
            ble.session.close()
        }
        let script = try BenchPico.chronoamperometry(seconds: seconds, intervalMilliseconds: Self.cpuInterval)
        let packages = seconds * 1000 / Self.cpuInterval
        /// CPU per package in ns: all of it, and the user-space part.
        func oneRun(_ session: PicoSession) async throws -> (total: Double, user: Double) {
            // Real time: a simulated loop that ran late catches up, so only the sequence is checked.
            let sink = SequenceCheckSink(interval: Double(Self.cpuInterval) / 1000, tolerance: .infinity)
            let recorder = RunRecorder(sinks: [sink])
            let before = CPUUse.now()
            let run = try await session.run(script, title: "cpu", backlogLimit: packages + 1)
            let end = try await recorder.record(run)
            let after = CPUUse.now()
            guard end.complete, end.packages == packages, sink.problems == 0 else {
                throw Failure(description: "uart: run ended \(end), \(sink.problems) sequence problems")
            }
            let perPackage = 1e9 / Double(end.packages)
            return ((after.total - before.total) * perPackage, (after.user - before.user) * perPackage)
        }
        _ = try await oneRun(uart.session)
        _ = try await oneRun(ble.session)
        var uartTimes: [(total: Double, user: Double)] = []
        var bleTimes: [(total: Double, user: Double)] = []
        for _ in 0..<rounds {
            uartTimes.append(try await oneRun(uart.session))
            bleTimes.append(try await oneRun(ble.session))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return CPUComparison(
            uart: median(uartTimes.map(\.total)),
            ble: median(bleTimes.map(\.total)),
            uartUser: median(uartTimes.map(\.user)),
            bleUser: median(bleTimes.map(\.user))
        )
    }
}
