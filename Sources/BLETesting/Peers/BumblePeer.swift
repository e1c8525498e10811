public import BLEWire
import Coordination
import Foundation
import Synchronization

/// The Bumble test peer of `Tests/Peers/` as a child process: started through `run-peer.sh`, ready
/// when it prints `READY port=N … peripherals=A,B`, ended with SIGTERM by `stop()` (its btsnoop file
/// is complete after that). Every `EVENT {…}` line it prints is kept in `events`.
public final class BumblePeer: @unchecked Sendable {
    public let port: UInt16
    public let peripherals: [BluetoothAddress]
    /// The peer's stderr log.
    public let logPath: String
    private let process: Process
    private let output: Output

    final class Output: @unchecked Sendable {
        let lines = Mutex<[String]>([])
    }

    /// Why the peer could not be started.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    private init(process: Process, output: Output, port: UInt16, peripherals: [BluetoothAddress], logPath: String) {
        self.process = process
        self.output = output
        self.port = port
        self.peripherals = peripherals
        self.logPath = logPath
    }

    /// Starts `script` (the path of `run-peer.sh`) with `arguments` plus `--listen 127.0.0.1:0`.
    public static func start(
        script: String,
        arguments: [String],
        logPath: String,
        readyTimeout: Duration = .seconds(90)
    ) async throws(StartError) -> BumblePeer {
        let process = Process()
        // Foundation spawns children with the spawning thread's signal mask, which blocks SIGTERM on
        // Swift's worker threads: clear the mask in a tiny Python shim, then exec the script.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let shim =
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        process.arguments = ["python3", "-c", shim, script, "--listen", "127.0.0.1:0"] + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        let output = Output()
        do {
            try process.run()
        } catch {
            throw StartError(description: "cannot run \(script): \(error)")
        }
        Threads.start(name: "bumble-stdout") {
            let handle = stdout.fileHandleForReading
            var partial = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                partial.append(chunk)
                while let newline = partial.firstIndex(of: 0x0A) {
                    let line = String(decoding: partial[partial.startIndex..<newline], as: UTF8.self)
                    partial.removeSubrange(partial.startIndex...newline)
                    output.lines.withLock { $0.append(line) }
                }
            }
        }
        let deadline = ContinuousClock.now + readyTimeout
        while ContinuousClock.now < deadline {
            if let ready = output.lines.withLock({ $0.first { $0.hasPrefix("READY ") } }) {
                let fields = Dictionary(
                    ready.split(separator: " ").dropFirst().compactMap { field -> (String, String)? in
                        let parts = field.split(separator: "=", maxSplits: 1)
                        return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
                    },
                    uniquingKeysWith: { first, _ in first }
                )
                guard let port = fields["port"].flatMap({ UInt16($0) }) else {
                    process.terminate()
                    throw StartError(description: "unreadable READY line: \(ready)")
                }
                let peripherals = (fields["peripherals"] ?? "").split(separator: ",").compactMap {
                    BluetoothAddress($0, type: .random)
                }
                return BumblePeer(
                    process: process,
                    output: output,
                    port: port,
                    peripherals: peripherals,
                    logPath: logPath
                )
            }
            if !process.isRunning {
                throw StartError(description: "the peer exited (status \(process.terminationStatus)); log: \(logPath)")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        process.terminate()
        throw StartError(description: "no READY line from the peer within \(readyTimeout); log: \(logPath)")
    }

    /// The peer's process id (for CPU accounting).
    public var processIdentifier: Int32 { process.processIdentifier }

    /// The `EVENT` lines so far (JSON text after the prefix).
    public var events: [String] {
        output.lines.withLock { $0.filter { $0.hasPrefix("EVENT ") }.map { String($0.dropFirst(6)) } }
    }

    /// Waits (bounded) for an event line containing `text`.
    public func waitForEvent(containing text: String, timeout: Duration = .seconds(10)) async -> String? {
        var found: String?
        _ = await eventually(timeout, every: .milliseconds(10)) {
            found = events.first { $0.contains(text) }
            return found != nil
        }
        return found
    }

    /// Sends SIGTERM and waits for the process to end.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}
