import CLineEditing
import Foundation

/// Where the console's lines come from: a terminal, through BSD editline (line editing, history on
/// Up and Down kept across sessions in `historyPath`, Ctrl-C clearing the line being typed), or any
/// other standard input, line by line.
/// The console reads one line at a time, from one thread at a time: that is what makes the unchecked
/// conformance sound.
final class LineInput: @unchecked Sendable {
    private let editor: OpaquePointer?
    /// Where the history of typed lines is kept between sessions (nil: not kept).
    let historyPath: String?

    init(historyPath: String? = LineInput.defaultHistoryPath) {
        editor = isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0 ? hcipico_line_editor_open("hcipico") : nil
        self.historyPath = historyPath
        if let editor, let historyPath { _ = hcipico_line_editor_load_history(editor, historyPath) }
    }

    deinit { hcipico_line_editor_close(editor) }

    /// `$HCIPICO_HISTORY`, else `$XDG_STATE_HOME/hcipico/console_history` (`~/.local/state/…`), the
    /// folder made when missing; nil without a home.
    static var defaultHistoryPath: String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["HCIPICO_HISTORY"] { return path.isEmpty ? nil : path }
        guard let state = environment["XDG_STATE_HOME"] ?? environment["HOME"].map({ $0 + "/.local/state" }) else {
            return nil
        }
        let folder = state + "/hcipico"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + "/console_history"
    }

    /// Whether lines come from a terminal a person types on.
    var isInteractive: Bool { editor != nil }

    /// The next line without its newline, after `prompt` on a terminal; nil at the end of input.
    func read(prompt: String) -> String? {
        guard let editor else { return readLine(strippingNewline: true) }
        return hcipico_line_editor_read(editor, prompt).map { String(cString: $0) }
    }

    /// Keeps `line` in the history, and the history in its file (so a console ended by a signal
    /// keeps it too).
    func remember(_ line: String) {
        guard let editor else { return }
        hcipico_line_editor_remember(editor, line)
        if let historyPath { _ = hcipico_line_editor_save_history(editor, historyPath) }
    }
}
