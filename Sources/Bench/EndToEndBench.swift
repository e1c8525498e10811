import BLEHost
import BLETesting
import Foundation
import PicoLink
import PicoSimulator

/// `Bench e2e [--duration S]`: samples/s from a `SimulatedPico` (virtual clock) through `GATTServer`, a
/// socketpair, `GATTClient`, `PicoSession` (framing, decoding on the reader thread) and `RunRecorder` into
/// a sink that checks the sequence: every package's device time (`eb`, from `timer_get`) must be the
/// previous one plus the loop interval, so a lost or reordered line is caught. Runs CA scripts back to back
/// for the duration; reports samples/s, CPU time per sample (getrusage, whole process: simulator included)
/// and RSS after a warm-up run and at the end. Every other run also checks each package against run limits
/// (`RunControl.check`, limits no value reaches), so the two rates side by side are the limit check's cost.
let endToEndSuite = BenchSuite(name: "e2e", summary: "simulator → GATT → PicoSession → sink, zero loss") { json in
    let duration = BenchOptions.duration
    let pico = try await BenchPico.open()
    defer { pico.close() }
    let session = pico.session
    // 100 000 packages of (time, current) per run: 100 s of 1 ms CA on the virtual clock.
    let packagesPerRun = 100_000
    let script = try BenchPico.chronoamperometry(seconds: 100)
    let sink = SequenceCheckSink(interval: 1e-3)
    // Limits no value of the run reaches: every package is checked, none stops the run.
    let limits = RunLimits(maximumCurrent: 1, potentialWindow: -10...10)
    func oneRun(checked: Bool) async throws -> Int {
        let recorder = RunRecorder(sinks: [sink])
        let control = RunControl(session: session, limits: limits)
        defer { control.runEnded() }
        // The simulator on a virtual clock outruns any device: the backlog holds a whole run, so the
        // figure is the pipeline's own rate and nothing is counted as overflowed.
        let run = try await session.run(script, title: "bench", backlogLimit: packagesPerRun + 1)
        let end =
            checked
            ? try await recorder.record(run) { event in
                if case .package(let package) = event { control.check(package) }
            }
            : try await recorder.record(run)
        guard end.complete, end.packages == packagesPerRun, sink.problems == 0 else {
            throw BenchFailure("e2e: run ended \(end), \(sink.problems) sequence problems")
        }
        return end.packages * 2
    }
    _ = try await oneRun(checked: false)  // warm-up
    _ = try await oneRun(checked: true)
    let rssStart = ProcessMemory.residentBytes()
    let cpuStart = ProcessMemory.cpuSeconds()
    let start = ContinuousClock.now
    var samples = 0
    var runs = 0
    var elapsed = 0.0
    // Per kind of run: samples and seconds, the two kinds alternating.
    var plain = (samples: 0, seconds: 0.0)
    var checked = (samples: 0, seconds: 0.0)
    repeat {
        let begun = ContinuousClock.now
        let count = try await oneRun(checked: runs % 2 == 1)
        let took = begun.duration(to: .now).inSeconds
        if runs % 2 == 1 {
            checked.samples += count
            checked.seconds += took
        } else {
            plain.samples += count
            plain.seconds += took
        }
        samples += count
        runs += 1
        elapsed = start.duration(to: .now).inSeconds
    } while elapsed < duration || runs < 2
    let checkRatio = (Double(checked.samples) / checked.seconds) / (Double(plain.samples) / plain.seconds)
    let cpu = ProcessMemory.cpuSeconds() - cpuStart
    let rssEnd = ProcessMemory.residentBytes()
    let rate = Double(samples) / elapsed
    let cpuPerSample = cpu / Double(samples) * 1e9
    if json {
        print(
            "{\"suite\":\"e2e\",\"samples\":\(samples),\"runs\":\(runs),\"seconds\":\(elapsed),"
                + "\"samples_per_s\":\(Int(rate)),\"cpu_ns_per_sample\":\(Int(cpuPerSample)),"
                + "\"rss_start\":\(rssStart),\"rss_end\":\(rssEnd),\"lost\":0,"
                + "\"limit_check_ratio\":\(String(format: "%.3f", checkRatio))}"
        )
    } else {
        print("e2e: SimulatedPico (virtual clock) → GATTServer → socketpair → GATTClient → PicoSession → sink")
        print(
            "  \(samples) samples (\(runs) runs of \(packagesPerRun) packages × 2 values) in \(String(format: "%.1f", elapsed)) s"
        )
        print("  \(Int(rate)) samples/s, 0 lost or out of sequence")
        print(
            "  runs checking every package against limits: \(String(format: "%.3f", checkRatio))× the rate of runs "
                + "that do not (same run, alternating)"
        )
        print("  CPU \(String(format: "%.0f", cpuPerSample)) ns/sample (whole process, simulator included)")
        print(
            "  RSS \(rssStart / 1024) KiB after warm-up, \(rssEnd / 1024) KiB at the end (Δ \((rssEnd - rssStart) / 1024) KiB)"
        )
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Checks that packages come in sequence and that device times advance by one interval per package
/// within a run: exactly (1 %) on a simulator's virtual clock; within `tolerance` of an interval (or not
/// at all, `.infinity`) on its real-time clock, where a late loop catches up.
final class SequenceCheckSink: SampleSink {
    let interval: Double
    let tolerance: Double
    private(set) var problems = 0
    private var previous: Double?
    private var expectedIndex = 0

    init(interval: Double, tolerance: Double = 0.01) {
        self.interval = interval
        self.tolerance = tolerance
    }

    func begin(_ run: RunInfo) throws(SinkError) {
        previous = nil
        expectedIndex = 0
    }

    func write(_ package: PicoPackage) throws(SinkError) {
        if package.index != expectedIndex { problems += 1 }
        expectedIndex = package.index + 1
        guard let time = package.values.first?.value else {
            problems += 1
            return
        }
        if let previous, abs(time - previous - interval) > interval * tolerance { problems += 1 }
        previous = time
    }

    func finish(_ end: RunEnd) throws(SinkError) {}
}

/// Process CPU time and resident memory.
enum ProcessMemory {
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
    }

    /// Current RSS from /proc/self/statm (pages × page size).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .ascii) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
