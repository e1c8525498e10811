import Foundation
import PicoLink
import PicoSimulator

/// `Bench cell [--rounds N]`: how soon the cell is confirmed off after a run that did not end normally,
/// on a live link to a simulated Pico in real time (`SystemClock`), per fault: a device error mid-run
/// (`!4205`: the firmware runs no `on_finished:`), a stop (`Z`, as a signal does), a current past a limit.
/// The time runs from the moment the run's end is known on the host (the error's end line, or the stop
/// asked) to `cell_off`'s end line; reported as median and largest per fault.
let cellOffSuite = BenchSuite(name: "cell", summary: "run that failed → cell off confirmed, per fault") { json in
    let rounds = 20
    var configuration = SimulatedPicoConfiguration()
    configuration.noiseSeed = 7
    let pico = try await BenchPico.open(configuration: configuration)
    defer { pico.close() }
    let session = pico.session
    let fails = try PicoScript(
        "var p\nvar c\nvar v\nstore_var v 5 ja\nset_pgstat_mode 2\nset_range ba 50u\ncell_on\n"
            + "meas_loop_ca p c 200m 10m 50m\npck_start\npck_add p\npck_add c\npck_end\nendloop\nset_e v\n"
            + "on_finished:\ncell_off\n"
    )
    let long = try PicoScript(
        "var p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\ncell_on\n"
            + "meas_loop_ca p c 200m 10m 10\npck_start\npck_add p\npck_add c\npck_end\nendloop\n"
            + "on_finished:\ncell_off\n"
    )
    enum Fault: String, CaseIterable { case deviceError = "device error", stop = "stop (Z)", limit = "limit" }
    var results: [Fault: [Double]] = [:]
    for fault in Fault.allCases {
        for _ in 0..<rounds {
            let limits = fault == .limit ? RunLimits(maximumCurrent: 1e-9) : RunLimits()
            let control = RunControl(session: session, limits: limits)
            let run = try await session.run(fault == .deviceError ? fails : long, title: "bench")
            let marks = CellOffMarks()
            async let enforcing: Void = control.enforce()
            var packages = 0
            var sawEnd = false
            for try await event in run.events {
                if case .package(let package) = event {
                    packages += 1
                    if fault == .limit, packages == 1 { marks.mark() }
                    control.check(package)
                    if fault == .stop, packages == 3 {
                        marks.mark()
                        Task { await control.stop("bench stop") }
                    }
                }
                if case .ended = event { sawEnd = true }
            }
            if fault == .deviceError { marks.mark() }
            let cell = await control.leaveSafe(scriptEnded: sawEnd)
            await enforcing
            guard case .offConfirmed = cell, let seconds = marks.sinceMark() else {
                throw BenchFailure("cell: \(fault.rawValue): \(cell)")
            }
            results[fault, default: []].append(seconds)
        }
    }
    // The limit check on a package within every limit: heap allocations over 100 000 checks.
    let within = PicoPackage(
        device: "bench",
        run: 1,
        index: 0,
        loop: 1,
        scan: nil,
        hostTime: 0,
        values: [
            PicoValue(variable: .appliedPotential, value: 0.2),
            PicoValue(variable: .current, value: 2e-6),
        ]
    )
    let checked = RunLimits(maximumCurrent: 1e-3, potentialWindow: -1...1)
    var breaches = 0
    AllocationCount.start()
    for _ in 0..<100_000 where checked.breach(in: within) != nil { breaches += 1 }
    let allocations = AllocationCount.stop()
    guard breaches == 0 else { throw BenchFailure("cell: the limit check found a breach in a package within") }
    func summary(_ values: [Double]) -> (median: Double, largest: Double) {
        let sorted = values.sorted()
        return (sorted[sorted.count / 2] * 1000, (sorted.last ?? 0) * 1000)
    }
    if json {
        let parts = Fault.allCases.map { fault in
            let (median, largest) = summary(results[fault] ?? [])
            return "\"\(fault.rawValue)\":{\"median_ms\":\(String(format: "%.2f", median)),"
                + "\"max_ms\":\(String(format: "%.2f", largest))}"
        }
        print(
            "{\"suite\":\"cell\",\"rounds\":\(rounds),\(parts.joined(separator: ",")),"
                + "\"limit_check_allocations_per_100k\":\(allocations)}"
        )
    } else {
        print(
            "cell: run that did not end normally → cell off confirmed (real-time simulated Pico, \(rounds) rounds each)"
        )
        for fault in Fault.allCases {
            let (median, largest) = summary(results[fault] ?? [])
            print(
                "  \(fault.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) median "
                    + "\(String(format: "%.2f", median)) ms, largest \(String(format: "%.2f", largest)) ms"
            )
        }
        print("  limit check: \(allocations) heap allocations over 100 000 packages within the limits")
    }
}

/// When the run's end became known on the host.
final class CellOffMarks: @unchecked Sendable {
    private let lock = NSLock()
    private var start: ContinuousClock.Instant?

    func mark() { lock.withLock { if start == nil { start = .now } } }

    func sinceMark() -> Double? {
        lock.withLock { start.map { $0.duration(to: .now).inSeconds } }
    }
}
