import Foundation
import PicoSimulator
import Synchronization

/// `Bench sim`: how fast a `SimulatedPico` on a virtual clock produces packages (interpret, model, encode,
/// chunk into 244-byte notifications), per cell model. The callback only counts, so this is the device side
/// alone; every package is checked to arrive (count of `P` lines).
let simulatorSuite = BenchSuite(name: "sim", summary: "SimulatedPico package production rate (virtual clock)") {
    json in
    let cases: [(name: String, points: Int, script: String)] = [
        (
            "CA 10 kΩ", 200_000,
            "e\nvar p\nvar c\nset_pgstat_mode 3\nset_autoranging ba 100n 5m\ncell_on\n"
                + "meas_loop_ca p c 500m 1m 200\npck_start\npck_add p\npck_add c\npck_end\nendloop\non_finished:\ncell_off\n\n"
        ),
        (
            "CV redox", 100_001,
            "e\nvar p\nvar c\nset_autoranging ba 1u 1m\ncell_on\n"
                + "meas_loop_cv p c -500m 500m -500m 20u 1\npck_start\npck_add p\npck_add c\npck_end\nendloop\n\n"
        ),
    ]
    var rows: [String] = []
    for (name, points, script) in cases {
        var best = Double.infinity
        var bytes = 0
        for _ in 0..<3 {
            let counter = SimulatorBenchCounter()
            let pico = SimulatedPico(
                configuration: .fast,
                output: { payload in counter.count(payload) }
            )
            pico.setMaximumNotificationPayload(244)
            pico.start()
            let start = ContinuousClock.now
            pico.receive(Array(script.utf8))
            while !counter.finished { try await Task.sleep(for: .microseconds(500)) }
            let elapsed = start.duration(to: .now)
            pico.stop()
            let seconds = elapsed.inSeconds
            guard counter.packages == points else {
                print("sim: \(name): expected \(points) packages, got \(counter.packages)")
                return
            }
            best = min(best, seconds)
            bytes = counter.bytes
        }
        let rate = Double(points) / best
        if json {
            rows.append(
                "{\"suite\":\"sim\",\"case\":\"\(name)\",\"packages\":\(points),\"seconds\":\(best),"
                    + "\"packages_per_s\":\(Int(rate)),\"bytes\":\(bytes)}"
            )
        } else {
            rows.append(
                "\(name.padding(toLength: 10, withPad: " ", startingAt: 0))  \(points) packages  "
                    + "best of 3 \(String(format: "%.3f", best)) s  \(Int(rate)) packages/s  "
                    + "\(String(format: "%.1f", Double(bytes) / best / 1e6)) MB/s"
            )
        }
    }
    if !json { print("sim: SimulatedPico, virtual clock, 244-byte notifications") }
    for row in rows { print(row) }
}

/// Counts notification bytes and `P` lines; `finished` once the script's closing empty line arrived.
final class SimulatorBenchCounter: Sendable {
    private struct State {
        var bytes = 0
        var packages = 0
        var previous: UInt8 = 0
        var lineStart = true
        var finished = false
    }

    private let state = Mutex(State())

    func count(_ payload: UnsafeRawBufferPointer) {
        state.withLock { state in
            state.bytes += payload.count
            for byte in payload {
                if state.lineStart, byte == UInt8(ascii: "P") { state.packages += 1 }
                if byte == UInt8(ascii: "\n"), state.previous == UInt8(ascii: "\n") { state.finished = true }
                state.lineStart = byte == UInt8(ascii: "\n")
                state.previous = byte
            }
        }
    }

    var finished: Bool { state.withLock { $0.finished } }
    var packages: Int { state.withLock { $0.packages } }
    var bytes: Int { state.withLock { $0.bytes } }
}
