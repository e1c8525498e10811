import Foundation
import RigJournal

/// `Bench uart`'s cable part: a rig (`hcipico rig`) with one Pico on a pseudo-terminal (`hcipico
/// simulate --pty`, real time, a 90 s chronoamperometry run after run), its cable pulled mid-run and
/// plugged in again three times. Pull: from the signal that pulls it to the run's incomplete end in the
/// journal. Plug: from the plug, or from the retry the rig had scheduled if that comes later (the
/// backoff in force, read from the rig's `retrying in` line), to the next run's start in the journal.
enum UARTCableBench {
    struct Round {
        /// Pull → incomplete end on disk, s.
        var ended: Double
        /// Next run's start − max(plug, the retry due), s.
        var restartedAfterBackoff: Double
        /// The backoff in force at the plug, s.
        var backoff: Double
    }

    static let script = """
        var p
        var c
        set_pgstat_mode 2
        set_range ba 50u
        set_e 200m
        cell_on
        meas_loop_ca p c 200m 100m 90
          pck_start
          pck_add p
          pck_add c
          pck_end
        endloop
        on_finished:
          cell_off

        """

    static func run(binary: String, rounds: Int = 3) async throws -> [Round] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-cable-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = directory.appendingPathComponent("pico").path
        try script.write(to: directory.appendingPathComponent("ca.mscr"), atomically: true, encoding: .utf8)
        let config = """
            [rig]
            name = "cable"
            journal = "cable.sqlite"
            [[device]]
            name = "cabled"
            transport = "tty:\(pty)"
            script = "ca.mscr"
            schedule = "continuous"
            max_failures = 1000
            """
        try config.write(to: directory.appendingPathComponent("rig.toml"), atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("rig.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let simulator = Process()
        simulator.executableURL = URL(fileURLWithPath: binary)
        simulator.arguments = ["simulate", "--pty", pty]
        simulator.standardError = FileHandle.nullDevice
        try simulator.run()
        defer {
            simulator.terminate()
            simulator.waitUntilExit()
        }
        try await waitFor { FileManager.default.fileExists(atPath: pty) }
        let rig = Process()
        rig.executableURL = URL(fileURLWithPath: binary)
        rig.arguments = ["rig", directory.appendingPathComponent("rig.toml").path]
        rig.standardError = try FileHandle(forWritingTo: log)
        rig.standardOutput = FileHandle.nullDevice
        try rig.run()
        defer {
            rig.terminate()
            rig.waitUntilExit()
        }
        let journalPath = directory.appendingPathComponent("cable.sqlite").path
        func runs() -> [RunSummary] {
            ((try? Journal.openForReading(path: journalPath).runs()) ?? []).sorted { $0.id < $1.id }
        }
        var results: [Round] = []
        for _ in 0..<rounds {
            try await waitFor { runs().last.map { $0.state == "running" && $0.packages >= 10 } ?? false }
            let pulledRun = runs().count
            let pulled = ContinuousClock.now
            kill(simulator.processIdentifier, SIGUSR1)
            try await waitFor(every: .milliseconds(5)) {
                runs().count >= pulledRun && runs()[pulledRun - 1].state != "running"
            }
            let ended = pulled.duration(to: .now).inSeconds
            // Out for two seconds, then in as soon as the rig announces its next retry.
            try await Task.sleep(for: .seconds(2))
            let announced = retries(log).count
            try await waitFor { retries(log).count > announced }
            let plugged = Date().timeIntervalSince1970
            kill(simulator.processIdentifier, SIGUSR2)
            try await waitFor(every: .milliseconds(5)) { runs().count > pulledRun }
            let started = runs()[pulledRun].startedAt
            let retry = retries(log).last
            let due = max(plugged, retry.map { $0.at + $0.delay } ?? plugged)
            results.append(Round(ended: ended, restartedAfterBackoff: started - due, backoff: retry?.delay ?? 0))
        }
        return results
    }

    /// The rig's `cabled: … retrying in Xs` lines: when each was logged (wall clock) and the delay.
    static func retries(_ log: URL) -> [(at: Double, delay: Double)] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        format.timeZone = .current
        return text.split(separator: "\n").compactMap { line in
            guard line.contains("cabled:"), let range = line.range(of: "retrying in ") else { return nil }
            let stamp = String(line.prefix(23))
            guard let date = format.date(from: stamp),
                let delay = Double(line[range.upperBound...].prefix { $0 == "." || $0.isNumber })
            else { return nil }
            return (date.timeIntervalSince1970, delay)
        }
    }

    static func waitFor(every step: Duration = .milliseconds(20), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw UARTBench.Failure(description: "uart: timed out") }
            try await Task.sleep(for: step)
        }
    }
}
