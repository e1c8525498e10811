import Foundation
import GRDBSQLite
import MethodSCRIPT
import PicoLink
import RigService

/// `Bench soak [--minutes M]`: the built `hcipico rig` (release, beside this program) with eight
/// simulated EmStat Picos at full rate (`realtime = false`, continuous schedules: four CVs, four CAs)
/// for M minutes (default 30) into a fresh journal. Samples the rig's resident set every 10 s and reports its
/// growth after the warm-up (the first tenth, at least a minute); then reads the journal: every run
/// closed, every complete run of a device with as many packages as its first, no gap in any run's
/// package numbers, the `runs` counts equal to the packages committed, `integrity_check` ok; and the
/// rig's CPU time, and the part of it the analysis of each run as it ended took (the rig's log says). Runs only
/// when named: it is not part of `make test` nor of a plain `Bench`.
enum SoakBench {
    static let suite = BenchSuite(
        name: "soak",
        summary: "hcipico rig, 8 simulated Picos at full rate for --minutes M (30): RSS growth, lost packages"
    ) { json in try await run(json: json) }

    static let cv =
        "e\nvar p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\nset_e 0\ncell_on\n"
        + "meas_loop_cv p c 0 500m -500m 10m 100m\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\n"
        + "on_finished:\n  cell_off\n\n"
    static let ca =
        "e\nvar p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\nset_e 200m\ncell_on\n"
        + "meas_loop_ca p c 200m 10m 5\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\n"
        + "on_finished:\n  cell_off\n\n"

    static var minutes: Double { BenchOptions.minutes }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(json: Bool) async throws {
        let binary = try BesideBench.hcipico()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-soak-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try cv.write(to: directory.appendingPathComponent("cv.mscr"), atomically: true, encoding: .utf8)
        try ca.write(to: directory.appendingPathComponent("ca.mscr"), atomically: true, encoding: .utf8)
        var config = "[rig]\nname = \"soak\"\njournal = \"soak.sqlite\"\n"
        for index in 1...8 {
            let script = index % 2 == 0 ? "ca.mscr" : "cv.mscr"
            config +=
                "\n[[device]]\nname = \"sim-\(index)\"\ntransport = \"sim\"\nrealtime = false\n"
                + "script = \"\(script)\"\nschedule = \"continuous\"\n"
        }
        let configPath = directory.appendingPathComponent("rig.toml").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)

        let minutes = self.minutes
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["rig", configPath, "--for", "\(Int(minutes * 60))s"]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("rig.log").path, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: directory.appendingPathComponent("rig.log").path)
        try process.run()
        let started = Date()
        var samples: [(seconds: Double, kilobytes: Int)] = []
        var largestLog = 0
        let logPath = directory.appendingPathComponent("soak.sqlite-wal").path
        while process.isRunning {
            if let rss = residentKilobytes(process.processIdentifier) {
                samples.append((Date().timeIntervalSince(started), rss))
            }
            let log = (try? FileManager.default.attributesOfItem(atPath: logPath))?[.size] as? Int
            largestLog = max(largestLog, log ?? 0)
            try await Task.sleep(for: .seconds(10))
        }
        process.waitUntilExit()
        let elapsed = Date().timeIntervalSince(started)
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        let rigCPU =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
        let analysis = Self.analysisLine(directory.appendingPathComponent("rig.log").path)
        let warmUp = max(60, minutes * 6)
        guard let baseline = samples.first(where: { $0.seconds >= warmUp }), let last = samples.last else {
            throw Failure(description: "the rig ended after \(Int(elapsed)) s, before its warm-up was over")
        }
        let check = try JournalCheck(path: directory.appendingPathComponent("soak.sqlite").path)
        let growth = Double(last.kilobytes - baseline.kilobytes) / 1024
        let peak = Double(samples.map(\.kilobytes).max() ?? 0) / 1024
        if json {
            print(
                "{\"suite\":\"soak\",\"minutes\":\(minutes),\"exit\":\(process.terminationStatus),"
                    + "\"runs\":\(check.runs),\"complete\":\(check.complete),\"packages\":\(check.packages),"
                    + "\"samples_per_s\":\(Int(Double(check.samples) / elapsed)),"
                    + "\"rss_after_warmup_mb\":\(Double(baseline.kilobytes) / 1024),\"rss_end_mb\":\(Double(last.kilobytes) / 1024),"
                    + "\"rss_growth_mb\":\(growth),\"largest_wal_mb\":\(Double(largestLog) / 1_048_576),\"lost\":\(check.lost),\"gaps\":\(check.gaps),"
                    + "\"mismatched\":\(check.mismatched),\"open\":\(check.open),\"integrity\":\"\(check.integrity)\","
                    + "\"rig_cpu_s\":\(rigCPU),\"analysed_runs\":\(analysis?.runs ?? 0),"
                    + "\"analysis_cpu_s\":\(analysis?.cpu ?? 0),\"kept_packages\":\(analysis?.kept ?? 0),"
                    + "\"keeping_s_per_package\":\(keepingCostPerPackage())}"
            )
            return
        }
        print("soak: hcipico rig, 8 simulated Picos at full rate (4 CV, 4 CA, continuous), \(minutes) min")
        print(
            String(
                format: "rig exit %d after %.0f s; %d runs (%d complete, %d incomplete, %d left open)",
                process.terminationStatus,
                elapsed,
                check.runs,
                check.complete,
                check.runs - check.complete - check.open,
                check.open
            )
        )
        print(
            String(
                format: "%d packages, %d samples committed (%.0f samples/s), %d overflowed",
                check.packages,
                check.samples,
                Double(check.samples) / elapsed,
                check.overflowed
            )
        )
        print(
            String(
                format: "RSS after %.0f s warm-up %.1f MB, at the end %.1f MB (growth %+.2f MB), peak %.1f MB",
                baseline.seconds,
                Double(baseline.kilobytes) / 1024,
                Double(last.kilobytes) / 1024,
                growth,
                peak
            )
        )
        print(String(format: "largest write-ahead log seen: %.1f MB", Double(largestLog) / 1_048_576))
        print(String(format: "rig CPU %.1f s (%.0f %% of one core)", rigCPU, 100 * rigCPU / elapsed))
        if let analysis {
            let keeping = Double(analysis.kept) * keepingCostPerPackage()
            print(
                String(
                    format:
                        "analysis of each run as it ended: %d runs, %.2f s of CPU on its task and the journal writer's (%.2f %% of the rig's CPU)",
                    analysis.runs,
                    analysis.cpu,
                    100 * analysis.cpu / max(rigCPU, 1e-9)
                )
            )
            print(
                String(
                    format: "  and keeping the points of %d packages as recorded, %.0f ns each (timed here): %.2f s "
                        + "(%.2f %%); in all %.2f %% of the rig's CPU, %.1f µs per run",
                    analysis.kept,
                    keeping / Double(max(analysis.kept, 1)) * 1e9,
                    keeping,
                    100 * keeping / max(rigCPU, 1e-9),
                    100 * (analysis.cpu + keeping) / max(rigCPU, 1e-9),
                    (analysis.cpu + keeping) / Double(max(analysis.runs, 1)) * 1e6
                )
            )
        }
        let tenths = (1...10).compactMap { tenth in
            samples.last { $0.seconds <= Double(tenth) * elapsed / 10 }
        }
        print(
            "RSS by tenths of the run: "
                + tenths.map { String(format: "%.1f", Double($0.kilobytes) / 1024) }.joined(separator: " ") + " MB"
        )
        print(
            "lost packages (complete runs short of the device's first): \(check.lost); runs with a gap: \(check.gaps); "
                + "runs whose count differs from their rows: \(check.mismatched); integrity_check: \(check.integrity)"
        )
    }

    /// The rig's closing `analysis: N runs analysed, X s of CPU, K packages kept for it as recorded` line.
    static func analysisLine(_ path: String) -> (runs: Int, cpu: Double, kept: Int)? {
        guard let log = try? String(contentsOfFile: path, encoding: .utf8),
            let line = log.split(separator: "\n").last(where: { $0.contains("analysis: ") && $0.contains("s of CPU") })
        else { return nil }
        let words = line.split(separator: " ")
        guard let at = words.firstIndex(of: "analysis:"), at + 1 < words.count, let runs = Int(words[at + 1]),
            let cpuAt = words.firstIndex(where: { $0.hasPrefix("CPU") }), cpuAt >= 3,
            let cpu = Double(words[cpuAt - 3]),
            let keptAt = words.firstIndex(of: "kept"), keptAt >= 2, let kept = Int(words[keptAt - 2])
        else { return nil }
        return (runs, cpu, kept)
    }

    /// CPU seconds per package of keeping a run's points as they are recorded (`RunPointCollector`, the
    /// rig's own), on runs of 200 packages of the soak's CV (potential and current): the median of 5 rounds
    /// of 500 runs, on this thread.
    static func keepingCostPerPackage() -> Double {
        let collector = RunPointCollector()
        let packages = (0..<200).map { index in
            PicoPackage(
                device: "sim-1",
                run: 1,
                index: index,
                loop: 1,
                scan: 1,
                hostTime: 0,
                values: [
                    PicoValue(variable: VariableType(code: "da")!, name: "p", value: Double(index) * 0.01),
                    PicoValue(variable: VariableType(code: "ba")!, name: "c", value: Double(index) * 1e-7),
                ]
            )
        }
        var rounds: [Double] = []
        for _ in 0..<5 {
            let before = Double(clockNanoseconds(CLOCK_THREAD_CPUTIME_ID)) * 1e-9
            for _ in 0..<500 {
                let run = UUID()
                collector.begin(run, deviceRun: 1)
                // Borrowed in place, as the rig hands each package on (no copy of the loop's own).
                packages.withUnsafeBufferPointer { packages in
                    for index in packages.indices { collector.record(packages[index], run: run) }
                }
                let table = collector.ended(run)
                collector.released(rows: table?.rowCount ?? 0)
            }
            rounds.append(
                (Double(clockNanoseconds(CLOCK_THREAD_CPUTIME_ID)) * 1e-9 - before) / Double(500 * packages.count)
            )
        }
        return rounds.sorted()[2]
    }

    /// VmRSS of `pid`, from /proc.
    static func residentKilobytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
}
