import CLineEditing
import Foundation

/// The one way to read typed lines: where a console's lines come from: a terminal, through BSD editline (line editing, history on
/// Up and Down kept across sessions in `historyPath`, Ctrl-C clearing the line being typed), or any
/// other standard input, line by line.
/// The console reads one line at a time, from one thread at a time: that is what makes the unchecked
/// conformance sound.
public final class LineInput: @unchecked Sendable {
    private let editor: OpaquePointer?
    /// Where the history of typed lines is kept between sessions (nil: not kept).
    public let historyPath: String?

    /// Lines from standard input, edited on a terminal under `program`'s name (editline's settings for
    /// it apply), with the history in `historyPath`.
    public init(program: String = StandardError.program, historyPath: String?) {
        editor = isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0 ? hcipico_line_editor_open(program) : nil
        self.historyPath = historyPath
        if let editor, let historyPath { _ = hcipico_line_editor_load_history(editor, historyPath) }
    }

    deinit { hcipico_line_editor_close(editor) }

    /// Where `program` keeps its console's history: `$PROGRAM_HISTORY` (empty: nowhere), else
    /// `$XDG_STATE_HOME/PROGRAM/console_history` (`~/.local/state/…`), the folder made when missing;
    /// nil without a home.
    public static func historyPath(
        program: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if let path = environment[program.uppercased() + "_HISTORY"] { return path.isEmpty ? nil : path }
        guard let state = environment["XDG_STATE_HOME"] ?? environment["HOME"].map({ $0 + "/.local/state" }) else {
            return nil
        }
        let folder = state + "/" + program
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + "/console_history"
    }

    /// Whether lines come from a terminal a person types on.
    public var isInteractive: Bool { editor != nil }

    /// The next line without its newline, after `prompt` on a terminal; nil at the end of input.
    public func read(prompt: String) -> String? {
        guard let editor else { return readLine(strippingNewline: true) }
        return hcipico_line_editor_read(editor, prompt).map { String(cString: $0) }
    }

    /// Keeps `line` in the history, and the history in its file (so a console ended by a signal
    /// keeps it too).
    public func remember(_ line: String) {
        guard let editor else { return }
        hcipico_line_editor_remember(editor, line)
        if let historyPath { _ = hcipico_line_editor_save_history(editor, historyPath) }
    }
}
