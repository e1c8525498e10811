import BLEHost
import Coordination
public import DeviceLinks
import Foundation

/// Pairing's questions on the controlling terminal (`/dev/tty`), so they work while standard input and
/// output carry data: type the passkey the device shows, read out the one to type on the device, or
/// confirm that six digits match.
public struct TerminalPairingPrompter: PairingPrompter {
    /// The prompter, when a person is at a terminal to answer.
    public static var available: TerminalPairingPrompter? {
        isatty(STDIN_FILENO) != 0 && access("/dev/tty", R_OK | W_OK) == 0 ? TerminalPairingPrompter() : nil
    }

    /// Asks for the passkey the device shows; nil when none (or not six digits) is typed.
    public func enterPasskey() async -> UInt32? {
        guard let line = await Self.ask("\(StandardError.program): enter the passkey the device shows: ") else {
            return nil
        }
        return UInt32(line.trimmingCharacters(in: .whitespaces)).flatMap { $0 <= 999_999 ? $0 : nil }
    }

    /// Says which passkey to type on the device.
    public func show(passkey: UInt32) async {
        StandardError.report("type \(PairingInteraction.digits(passkey)) on the device to pair")
    }

    /// Asks whether the device shows `number`; yes only for an answer starting with y.
    public func confirm(number: UInt32) async -> Bool {
        let answer = await Self.ask(
            "\(StandardError.program): does the device show \(PairingInteraction.digits(number))? [y/N] "
        )
        return answer?.lowercased().hasPrefix("y") == true
    }

    /// Writes `prompt` to the terminal and reads one line there, on a thread of its own. A cancelled task
    /// (Ctrl-C, SIGTERM) stops waiting at once with no answer; the thread's read ends with the process.
    private static func ask(_ prompt: String) async -> String? {
        await Threads.blocking(name: "pairing-prompt") { () -> String? in
            guard let terminal = FileHandle(forUpdatingAtPath: "/dev/tty") else { return nil }
            terminal.write(Data(prompt.utf8))
            var line: [UInt8] = []
            while true {
                let chunk = terminal.readData(ofLength: 1)
                guard let byte = chunk.first, byte != 0x0A else { break }
                line.append(byte)
            }
            try? terminal.close()
            return String(decoding: line, as: UTF8.self)
        } ?? nil
    }
}
