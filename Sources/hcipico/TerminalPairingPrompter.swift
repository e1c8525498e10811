import BLEHost
import DeviceLinks
import Foundation
import Synchronization

/// Pairing's questions on the controlling terminal (`/dev/tty`), so they work while standard input and
/// output carry data: type the passkey the device shows, read out the one to type on the device, or
/// confirm that six digits match.
struct TerminalPairingPrompter: PairingPrompter {
    /// The prompter, when a person is at a terminal to answer.
    static var available: TerminalPairingPrompter? {
        isatty(STDIN_FILENO) != 0 && access("/dev/tty", R_OK | W_OK) == 0 ? TerminalPairingPrompter() : nil
    }

    func enterPasskey() async -> UInt32? {
        guard let line = await Self.ask("hcipico: enter the passkey the device shows: ") else { return nil }
        return UInt32(line.trimmingCharacters(in: .whitespaces)).flatMap { $0 <= 999_999 ? $0 : nil }
    }

    func show(passkey: UInt32) async {
        StandardError.report("type \(PairingInteraction.digits(passkey)) on the device to pair")
    }

    func confirm(number: UInt32) async -> Bool {
        let answer = await Self.ask("hcipico: does the device show \(PairingInteraction.digits(number))? [y/N] ")
        return answer?.lowercased().hasPrefix("y") == true
    }

    /// Writes `prompt` to the terminal and reads one line there, on a thread of its own. A cancelled task
    /// (Ctrl-C, SIGTERM) stops waiting at once with no answer; the thread's read ends with the process.
    private static func ask(_ prompt: String) async -> String? {
        let answer = PromptAnswer()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                answer.wait(continuation)
                if Task.isCancelled { return answer.give(nil) }
                let thread = Thread {
                    guard let terminal = FileHandle(forUpdatingAtPath: "/dev/tty") else { return answer.give(nil) }
                    terminal.write(Data(prompt.utf8))
                    var line: [UInt8] = []
                    while true {
                        let chunk = terminal.readData(ofLength: 1)
                        guard let byte = chunk.first, byte != 0x0A else { break }
                        line.append(byte)
                    }
                    try? terminal.close()
                    answer.give(String(decoding: line, as: UTF8.self))
                }
                thread.start()
            }
        } onCancel: {
            answer.give(nil)
        }
    }
}

/// One prompt's answer, given once: by the terminal, or nil by a cancellation, whichever comes first.
private final class PromptAnswer: Sendable {
    private let state = Mutex<(waiter: CheckedContinuation<String?, Never>?, given: String??)>((nil, nil))

    func wait(_ continuation: CheckedContinuation<String?, Never>) {
        let early = state.withLock { state -> String?? in
            if let given = state.given { return given }
            state.waiter = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func give(_ line: String?) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            guard state.given == nil else { return nil }
            state.given = .some(line)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: line)
    }
}
