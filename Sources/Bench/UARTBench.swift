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
/// 2. CPU per package against the Bluetooth path, in one run: the simulated Pico serves in another
///    process (`hcipico simulate --pty` unpaced, and `hcipico simulate --socket`), so that this
///    process's CPU time is the host's alone; the same chronoamperometry (100,000 packages) runs over
///    each in turn, seven times; the medians are compared.
/// 3. A rig's cable pulled mid-run and plugged in again (`UARTCableBench`).
enum UARTBench {
    static let suite = BenchSuite(name: "uart", summary: "a Pico on a UART: line use at 230400 baud, CPU vs BLE") {
        json in try await run(json: json)
    }

    /// Runs of 100,000 packages over each path, alternating; the medians are compared.
    static let rounds = 7

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(json: Bool) async throws {
        let line = try await lineUse()
        let cpu = try await cpuPerPackage()
        let cable = try await UARTCableBench.run(binary: try hcipico())
        let pulls = cable.map(\.ended).sorted()
        let restarts = cable.map(\.restartedAfterBackoff).sorted()
        if json {
            print(
                "{\"suite\":\"uart\",\"line_bytes_per_s\":\(Int(line.bytesPerSecond)),\"line_use\":"
                    + "\(String(format: "%.4f", line.bytesPerSecond / 23_040)),\"packages\":\(line.packages),\"lost\":0,"
                    + "\"uart_cpu_ns_per_package\":\(Int(cpu.uart)),\"ble_cpu_ns_per_package\":\(Int(cpu.ble)),"
                    + "\"uart_over_ble\":\(String(format: "%.3f", cpu.uart / cpu.ble)),"
                    + "\"uart_over_ble_user\":\(String(format: "%.3f", cpu.uartUser / cpu.bleUser)),"
                    + "\"pull_to_incomplete_s\":\(pulls),\"plug_to_run_after_backoff_s\":\(restarts)}"
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
        print("uart: host CPU per package, the device in another process, same run")
        print("                        all     user space")
        print(String(format: "  UART (tty)            %6.0f  %6.0f ns", cpu.uart, cpu.uartUser))
        print(String(format: "  Bluetooth (GATT/VSP)  %6.0f  %6.0f ns", cpu.ble, cpu.bleUser))
        print(String(format: "  UART / Bluetooth      %6.2f  %6.2f", cpu.uart / cpu.ble, cpu.uartUser / cpu.bleUser))
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
        let elapsed = BenchSuite.seconds(first.0.duration(to: last.0))
        return (Double(last.1 - first.1) / elapsed, packages)
    }

    /// The `hcipico` built beside `Bench`.
    static func hcipico() throws -> String {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("hcipico").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw Failure(description: "no hcipico beside Bench: swift build -c release --product hcipico")
        }
        return binary
    }

    /// CPU per package over each path (ns), all of it and the user-space part.
    struct CPUComparison {
        var uart: Double
        var ble: Double
        var uartUser: Double
        var bleUser: Double
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

    static func cpuPerPackage() async throws -> CPUComparison {
        let binary = try hcipico()
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
        for arguments in [["--pty", pty], ["--socket", socket]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["simulate", "--fast"] + arguments
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
            options: LinkOpener.Options(simulator: SimulatorSettings(fast: true, socket: socket))
        )
        defer {
            uart.session.close()
            ble.session.close()
        }
        let seconds = 100
        let script = try BenchPico.chronoamperometry(seconds: seconds)
        /// CPU per package in ns: all of it, and the user-space part.
        func oneRun(_ session: PicoSession) async throws -> (total: Double, user: Double) {
            let sink = SequenceCheckSink(interval: 1e-3)
            let recorder = RunRecorder(sinks: [sink])
            let before = CPUUse.now()
            let run = try await session.run(script, title: "cpu", backlogLimit: seconds * 1000 + 1)
            let end = try await recorder.record(run)
            let after = CPUUse.now()
            guard end.complete, end.packages == seconds * 1000, sink.problems == 0 else {
                throw Failure(description: "uart: run ended \(end), \(sink.problems) sequence problems")
            }
            let perPackage = 1e9 / Double(end.packages)
            return ((after.total - before.total) * perPackage, (after.user - before.user) * perPackage)
        }
        _ = try await oneRun(uart.session)
        _ = try await oneRun(ble.session)
        var uartTimes: [(total: Double, user: Double)] = []
        var bleTimes: [(total: Double, user: Double)] = []
        for _ in 0..<Self.rounds {
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
