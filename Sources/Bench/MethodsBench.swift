import Foundation
import MethodSCRIPT

/// `Bench methods`: what it costs to make a method's script and check it before anything is sent: per
/// technique, validating and rendering its defaults (`Method.script()`, which checks every bound and
/// rule) and then running the MethodSCRIPT checker over the script; per example script, the checker
/// alone. Medians of 2,000 rounds, beside the 1 ms budget the methods issue sets.
enum MethodsBench {
    static let suite = BenchSuite(name: "methods", summary: "render + check a method, check a script, vs 1 ms") {
        json in
        let rounds = 2_000
        var rows: [(name: String, render: Double, check: Double)] = []
        for technique in Technique.allCases {
            let method = try Method(technique: technique)
            let script = try method.script()
            guard ScriptChecker.check(script).isEmpty else { throw BenchFailure("methods: \(technique) refused") }
            let render = median(rounds) { _ = try? method.script() }
            let check = median(rounds) { _ = ScriptChecker.check(script) }
            rows.append((technique.rawValue, render, check))
        }
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples")
        for name in (try FileManager.default.contentsOfDirectory(atPath: examples.path)).sorted()
        where name.hasSuffix(".mscr") {
            let text = try String(contentsOf: examples.appendingPathComponent(name), encoding: .ascii)
            rows.append((name, 0, median(rounds) { _ = ScriptChecker.check(text) }))
        }
        if json {
            let items = rows.map { "{\"name\":\"\($0.name)\",\"render_us\":\($0.render),\"check_us\":\($0.check)}" }
            print("{\"suite\":\"methods\",\"rows\":[\(items.joined(separator: ","))]}")
            return
        }
        print("methods: µs per method (median of \(rounds)); budget 1000 µs for render and check together")
        print("what                 render+validate   check   total   share of 1 ms")
        for row in rows {
            let total = row.render + row.check
            print(
                row.name.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + String(format: " %15.1f %7.1f %7.1f %12.1f %%", row.render, row.check, total, total / 10)
            )
        }
    }

    /// The median time of `body` in µs over `rounds` runs.
    static func median(_ rounds: Int, _ body: () -> Void) -> Double {
        var times: [Double] = []
        times.reserveCapacity(rounds)
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
        }
        return times.sorted()[rounds / 2]
    }
}
