import Foundation

/// `hcipico simulate --pty` in a scratch directory: a simulated EmStat Pico on a pseudo-terminal, reached
/// as `tty:PATH` the way a Pico on a USB-UART cable is, and unplugged and plugged in again by signal.
final class PseudoTerminalPico: Sendable {
    let process: CommandProcess
    /// The link to the terminal, as `/dev/serial/by-id/…` is to a cable's port.
    let path: String

    /// Starts the simulator (`--fast` unless `realTime`) and waits for its terminal.
    init(in directory: URL, name: String = "pico", realTime: Bool = false, extra: [String] = []) throws {
        path = directory.appendingPathComponent(name).path
        process = try CommandProcess(
            ["simulate", "--pty", path] + (realTime ? [] : ["--fast"]) + extra,
            in: directory
        )
        let path = self.path
        guard process.wait(until: { FileManager.default.fileExists(atPath: path) }) else {
            throw Failure(description: "no terminal at \(path): \(process.standardError)")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `tty:PATH`, with `@BAUD` when given.
    func target(baud: Int? = nil) -> String { "tty:\(path)" + (baud.map { "@\($0)" } ?? "") }

    /// Pulls the cable and waits for the link to go.
    func unplug() -> Bool {
        process.send(SIGUSR1)
        let path = self.path
        return process.wait(until: { !FileManager.default.fileExists(atPath: path) })
    }

    /// Plugs the cable in again and waits for the link.
    func plug() -> Bool {
        process.send(SIGUSR2)
        let path = self.path
        return process.wait(until: { FileManager.default.fileExists(atPath: path) })
    }

    /// Stops the simulator; its exit status.
    func stop() -> Int32 {
        process.send(SIGTERM)
        return process.finish().status
    }
}
