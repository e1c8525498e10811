import Foundation
import Glibc
import Synchronization
import UnixSignals

/// `Bench signals`: how soon a process acts on SIGINT sent by another, through a self-pipe that a thread
/// of its own reads (the one-shot commands' `Shutdown`) and through `UnixSignalsSequence` read by a task
/// (the rig's service group), with the cooperative pool free and with every one of its threads in a
/// blocking call (a cleanup stuck in a system call, the case the urgent exit exists for).
///
/// Each measurement is a child process (this executable, told what to be by `childVariable`): it
/// sets up its path, says `ready`, and on the signal prints the monotonic time it acted at and exits;
/// the parent takes the time just before `kill`. Three rounds, each path and load in turn.
enum SignalsBench {
    static let suite = BenchSuite(
        name: "signals",
        summary: "SIGINT → acted on: self-pipe thread vs UnixSignalsSequence"
    ) {
        json in try run(json: json)
    }

    /// The environment variable that makes `Bench` a child: `pipe` or `sequence`, `,blocked` or `,free`.
    static let childVariable = "HCIPICO_BENCH_SIGNAL_CHILD"
    static let rounds = 3
    /// How long each blocking call holds a thread of the pool, and how many there are per core.
    static let blockFor: UInt32 = 2_000_000
    static let blockersPerCore = 2

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(json: Bool) throws {
        var results: [String: [Double]] = [:]
        let cases = ["pipe,free", "pipe,blocked", "sequence,free", "sequence,blocked"]
        for _ in 0..<rounds {
            for name in cases { results[name, default: []].append(try measure(name)) }
        }
        func median(_ name: String) -> Double { results[name, default: [0]].sorted()[rounds / 2] }
        if json {
            let fields = cases.map {
                "\"\($0.replacingOccurrences(of: ",", with: "_"))_ms\":\(String(format: "%.2f", median($0)))"
            }
            print("{\"suite\":\"signals\"," + fields.joined(separator: ",") + "}")
            return
        }
        print("signals: SIGINT from another process → acted on, median of \(rounds) (ms)")
        print("  path                      pool free   pool blocked")
        for (path, label) in [("pipe", "self-pipe, own thread"), ("sequence", "UnixSignalsSequence, task")] {
            let free = median("\(path),free")
            let blocked = median("\(path),blocked")
            print(
                String(
                    format: "  %@  %9.2f   %12.2f",
                    label.padding(toLength: 26, withPad: " ", startingAt: 0),
                    free,
                    blocked
                )
            )
        }
    }

    /// One child's time from `kill` to acting, in milliseconds.
    static func measure(_ name: String) throws -> Double {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.environment = ProcessInfo.processInfo.environment.merging([childVariable: name]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        defer { child.waitUntilExit() }
        let reader = output.fileHandleForReading
        guard line(reader) == "ready" else {
            child.terminate()
            throw Failure(description: "the \(name) child did not get ready")
        }
        let sent = monotonic()
        kill(child.processIdentifier, SIGINT)
        guard let acted = line(reader)?.split(separator: " ").last.flatMap({ Double($0) }) else {
            throw Failure(description: "the \(name) child did not say when it acted")
        }
        return (acted - sent) * 1000
    }

    /// A line from `handle`, read a byte at a time (no more than the line is taken).
    static func line(_ handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while let byte = try? handle.read(upToCount: 1)?.first {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }

    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The child: `spec` is `PATH,LOAD`. Never returns: it exits once it has acted on the signal.
    static func child(_ spec: String) async -> Never {
        let parts = spec.split(separator: ",")
        if parts.first == "pipe" {
            SelfPipe.install()
        } else {
            let signals = await UnixSignalsSequence(trapping: .sigint)
            Task.detached {
                for await _ in signals { acted() }
            }
        }
        if parts.last == "blocked" {
            for _ in 0..<(ProcessInfo.processInfo.activeProcessorCount * blockersPerCore) {
                Task.detached { usleep(blockFor) }
            }
        }
        usleep(300_000)
        print("ready")
        fflush(nil)
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        exit(1)
    }

    static func acted() -> Never {
        print(String(format: "acted %.6f", monotonic()))
        fflush(nil)
        exit(0)
    }
}

/// The self-pipe: the handler writes a byte, a thread of its own reads it and acts.
private enum SelfPipe {
    static let writeEnd = Atomic<Int32>(-1)

    static func install() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        writeEnd.store(ends[1], ordering: .sequentiallyConsistent)
        signal(SIGINT) { _ in
            var byte: UInt8 = 1
            _ = write(SelfPipe.writeEnd.load(ordering: .relaxed), &byte, 1)
        }
        let readEnd = ends[0]
        Thread {
            var byte: UInt8 = 0
            _ = read(readEnd, &byte, 1)
            SignalsBench.acted()
        }.start()
    }
}
