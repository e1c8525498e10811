import BLEHost
import Foundation

/// Pairing's questions on the controlling terminal (`/dev/tty`), so they work while standard input and
/// output carry data: type the passkey the device shows, read out the one to type on the device, or
/// confirm that six digits match.
enum PairingPrompt {
    /// Whether a person is at a terminal to answer.
    static var isAvailable: Bool { isatty(STDIN_FILENO) != 0 && access("/dev/tty", R_OK | W_OK) == 0 }

    static let interaction = PairingInteraction(
        enterPasskey: {
            guard let line = await ask("hcipico: enter the passkey the device shows: ") else { return nil }
            return UInt32(line.trimmingCharacters(in: .whitespaces)).flatMap { $0 <= 999_999 ? $0 : nil }
        },
        showPasskey: { passkey in
            StandardError.report("type \(sixDigits(passkey)) on the device to pair")
        },
        confirmNumber: { number in
            let answer = await ask("hcipico: does the device show \(sixDigits(number))? [y/N] ")
            return answer?.lowercased().hasPrefix("y") == true
        }
    )

    static func sixDigits(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 6 - text.count)) + text
    }

    /// Writes `prompt` to the terminal and reads one line there, on a thread of its own.
    private static func ask(_ prompt: String) async -> String? {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                guard let terminal = FileHandle(forUpdatingAtPath: "/dev/tty") else {
                    return continuation.resume(returning: nil)
                }
                terminal.write(Data(prompt.utf8))
                var line: [UInt8] = []
                while true {
                    let chunk = terminal.readData(ofLength: 1)
                    guard let byte = chunk.first, byte != 0x0A else { break }
                    line.append(byte)
                }
                try? terminal.close()
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }
            thread.start()
        }
    }
}
