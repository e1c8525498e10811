import BLETesting
import Foundation

/// The built `hcipico` running in a scratch directory (a `TestProgram`), for tests that signal it or
/// kill it while it runs and then read the files it wrote there.
final class CommandProcess: Sendable {
    let program: TestProgram
    let directory: URL

    init(
        _ arguments: [String],
        in directory: URL,
        environment: [String: String] = [:],
        pipeOutput: Bool = false
    ) throws {
        self.directory = directory
        program = try TestProgram(
            try TestProgram.hcipico(),
            arguments,
            in: directory,
            environment: environment,
            pipeOutput: pipeOutput
        )
    }

    /// The text of a file in the directory ("" when it is not there).
    func text(_ name: String) -> String {
        (try? String(contentsOfFile: directory.appendingPathComponent(name).path, encoding: .utf8)) ?? ""
    }

    /// What it wrote to standard output and error so far.
    var standardOutput: String { program.outputText }
    var standardError: String { program.errorText }

    /// Waits (up to 30 s) until `condition` holds; false on time-out or when the program ended first.
    func wait(until condition: () -> Bool) -> Bool { program.wait(until: condition) }

    /// `wait(until:)` without holding a thread of the cooperative pool.
    func waitAsync(until condition: () -> Bool) async -> Bool { await program.waitAsync(until: condition) }

    func send(_ signal: Int32) { program.send(signal) }

    /// Waits for the end: the exit status (-signal when a signal killed it) and the seconds since the
    /// first signal sent.
    func finish() -> (status: Int32, seconds: Double) {
        let outcome = program.finish()
        return (outcome.status, outcome.secondsAfterSignal)
    }

    /// `finish()` without holding a thread while the program runs.
    func finishAsync() async -> (status: Int32, seconds: Double) {
        let outcome = await program.finishAsync()
        return (outcome.status, outcome.secondsAfterSignal)
    }
}
