import CLineEditing
import Foundation

/// Where the console's lines come from: a terminal, through BSD editline (line editing, history on
/// Up and Down, Ctrl-C clearing the line being typed), or any other standard input, line by line.
/// The console reads one line at a time, from one thread at a time: that is what makes the unchecked
/// conformance sound.
final class LineInput: @unchecked Sendable {
    private let editor: OpaquePointer?

    init() {
        editor = isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0 ? hcipico_line_editor_open("hcipico") : nil
    }

    deinit { hcipico_line_editor_close(editor) }

    /// Whether lines come from a terminal a person types on.
    var isInteractive: Bool { editor != nil }

    /// The next line without its newline, after `prompt` on a terminal; nil at the end of input.
    func read(prompt: String) -> String? {
        guard let editor else { return readLine(strippingNewline: true) }
        return hcipico_line_editor_read(editor, prompt).map { String(cString: $0) }
    }

    /// Keeps `line` in the history.
    func remember(_ line: String) {
        guard let editor else { return }
        hcipico_line_editor_remember(editor, line)
    }
}
