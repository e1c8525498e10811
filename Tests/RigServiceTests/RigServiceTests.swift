import BLETesting
import Foundation
import Logging
import RigCore
import RigService
import Testing

/// The rig as one service group, on simulated devices: how it ends decides what its outcome says,
/// and a status server that cannot listen stops it before any device starts.
@Suite struct RigServiceTests {
    /// A folder with a script, and the config text's journal in it.
    static func config(_ devices: String, extra: String = "") throws -> (RigConfig, folder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rigservice-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script =
            "e\nvar c\nvar p\nset_pgstat_mode 2\ncell_on\nmeas_loop_ca p c 200m 50m 300m\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\ncell_off\n\n"
        try script.write(toFile: folder + "/CA.mscr", atomically: true, encoding: .utf8)
        let text = """
            [rig]
            name = "bench"
            journal = "\(folder)/bench.sqlite"
            \(extra)

            \(devices)
            """
        let parser = RigConfigParser(transportCheck: { $0 == "sim" ? nil : "not here: \($0)" })
        return (try parser.parse(text: text, file: folder + "/rig.toml"), folder)
    }

    static func settings(_ config: RigConfig, _ path: String, runFor: Duration? = nil) throws -> RigService.Settings {
        RigService.Settings(
            configPath: path + "/rig.toml",
            runFor: runFor,
            toolVersion: "hcipico test",
            secrets: try RigFleet.Secrets(config),
            loadConfig: { nil },
            droppedLogLines: { 0 },
            exitNow: { reason, why in fatalError("\(reason): \(why)") }
        )
    }

    static let device = """
        [[device]]
        name = "cell-1"
        transport = "sim"
        realtime = false
        script = "CA.mscr"
        """

    @Test func aRigWhoseSchedulesAreDoneEndsSoWithItsRunRecorded() async throws {
        let (config, folder) = try Self.config(Self.device + "\nschedule = \"once\"")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outcome = try await RigService.run(
            config,
            settings: try Self.settings(config, folder),
            logger: Logger(label: "test")
        )
        guard case .schedulesDone = outcome.ending else {
            Issue.record("ended: \(outcome.ending)")
            return
        }
        #expect(outcome.snapshots.map(\.name) == ["cell-1"])
        let device = try #require(outcome.snapshots.first)
        #expect(device.completeRuns == 1 && device.packages == 6, "\(device)")
        #expect(outcome.journalFailure == nil)
        #expect(outcome.fleet.isEmpty)
        // The table `hcipico rig` prints as it ends.
        let summary = outcome.summary(journal: "bench.sqlite", droppedLogLines: 0).split(separator: "\n")
        #expect(summary.first == "device            runs  complete  incomplete  packages  reconnects  state")
        #expect(summary.dropFirst().first?.hasPrefix("cell-1               1         1           0         6") == true)
        #expect(summary.last == "journal: bench.sqlite")
        let dropped = outcome.summary(journal: "bench.sqlite", droppedLogLines: 3)
        #expect(dropped.hasSuffix("log: 3 writes to standard error dropped (closed, full or not read)"))
    }

    /// (How many runs fit in the time depends on the load of the machine running the tests, so only
    /// their accounting is checked; `RigCommandLineTests` checks the run `--for` cuts short.)
    @Test func aRigRunForAWhileEndsByItsDurationWithEveryRunAccountedFor() async throws {
        let (config, folder) = try Self.config(
            Self.device.replacingOccurrences(of: "realtime = false", with: "realtime = true") + "\nevery = \"1s\""
        )
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = ContinuousClock.now
        let outcome = try await RigService.run(
            config,
            settings: try Self.settings(config, folder, runFor: .milliseconds(1500)),
            logger: Logger(label: "test")
        )
        guard case .duration = outcome.ending else {
            Issue.record("ended: \(outcome.ending)")
            return
        }
        #expect(ContinuousClock.now - started >= .milliseconds(1500))
        let device = try #require(outcome.snapshots.first)
        #expect(device.runs == device.completeRuns + device.incompleteRuns, "\(device)")
        #expect(device.currentRun == nil, "\(device)")
    }

    @Test func aStatusServerThatCannotListenStopsTheRigBeforeAnyDeviceStarts() async throws {
        // A port already taken.
        let taken = try LoopbackPort(listening: true)
        defer { taken.close() }
        let port = taken.port
        let (config, folder) = try Self.config(
            Self.device + "\nschedule = \"once\"",
            extra: "\n[status]\nlisten = \"127.0.0.1:\(port)\"\n"
        )
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outcome = try await RigService.run(
            config,
            settings: try Self.settings(config, folder),
            logger: Logger(label: "test")
        )
        guard case .statusFailed(let message) = outcome.ending else {
            Issue.record("ended: \(outcome.ending)")
            return
        }
        #expect(message.contains("127.0.0.1:\(port)"), "\(message)")
        #expect(outcome.snapshots.allSatisfy { $0.runs == 0 }, "\(outcome.snapshots)")
    }
}
