import Foundation

/// The built `hcipico` started in a scratch directory with its standard error in a file there, for
/// tests that signal it or kill it while it runs.
final class CommandProcess: @unchecked Sendable {
    let process = Process()
    let directory: URL
    let errorPath: String
    private var signalled: Date?

    init(
        _ arguments: [String],
        in directory: URL,
        standardOutput: Any? = nil,
        environment: [String: String] = [:]
    ) throws {
        self.directory = directory
        errorPath = directory.appendingPathComponent("stderr.txt").path
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = try CommandLineTests.binary()
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = directory
        process.standardOutput = standardOutput ?? FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    /// The text of a file in the directory ("" when it is not there).
    func text(_ name: String) -> String {
        (try? String(contentsOfFile: directory.appendingPathComponent(name).path, encoding: .utf8)) ?? ""
    }

    var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits (up to 30 s) until `condition` holds; false on time-out or when the program ended first.
    func wait(until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if condition() { return true }
            if !process.isRunning { return condition() }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// `wait(until:)` without holding a thread: for async tests, which share the small cooperative pool
    /// with every other test (two threads on two cores).
    func waitAsync(until condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if condition() { return true }
            if !process.isRunning { return condition() }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// `finish()` without holding a thread while the program runs.
    func finishAsync() async -> (status: Int32, seconds: Double) {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        return finish()
    }

    func send(_ signal: Int32) {
        signalled = signalled ?? Date()
        kill(process.processIdentifier, signal)
    }

    /// Waits for the end: the exit status (-signal when a signal killed it) and the seconds since the
    /// first signal sent.
    func finish() -> (status: Int32, seconds: Double) {
        process.waitUntilExit()
        let seconds = signalled.map { Date().timeIntervalSince($0) } ?? 0
        let status =
            process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        return (status, seconds)
    }
}
