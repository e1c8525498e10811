import Foundation

/// Runs `Tests/Peers/anchor.py` (Bumble's own host) with the checkout's `.venv` Python and returns what
/// it printed on standard output (one JSON object). The signal mask is cleared first: Foundation's
/// Process would hand the child this process's blocked signals, and asyncio would then never see them.
enum AnchorProcess {
    static func run(_ anchor: String, _ arguments: [String]) throws -> Data {
        let root = URL(fileURLWithPath: anchor).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let python = root.appendingPathComponent(".venv/bin/python").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let shim =
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        process.arguments = ["python3", "-c", shim, python, anchor] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}
