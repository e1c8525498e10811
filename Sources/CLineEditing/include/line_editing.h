#ifndef HCIPICO_LINE_EDITING_H
#define HCIPICO_LINE_EDITING_H

/// Line editing and history for hcipico's console, through the BSD editline library (libedit).

typedef struct hcipico_line_editor hcipico_line_editor;

/// An editor on the terminal's standard input and output, emacs key bindings, 500 lines of history.
/// Ctrl-C clears the line being typed instead of raising SIGINT (only while a line is being read).
/// Returns NULL when the terminal cannot be edited.
hcipico_line_editor *hcipico_line_editor_open(const char *program);

/// Reads one line after `prompt`, without its newline; NULL at the end of input (Ctrl-D on an empty
/// line). The text stays valid until the next call.
const char *hcipico_line_editor_read(hcipico_line_editor *editor, const char *prompt);

/// Adds `line` to the history (Up and Down recall it).
void hcipico_line_editor_remember(hcipico_line_editor *editor, const char *line);

/// Reads the history saved in `path` (lines typed in earlier sessions); -1 when it cannot.
int hcipico_line_editor_load_history(hcipico_line_editor *editor, const char *path);

/// Writes the history (at most its last 500 lines) to `path`; -1 when it cannot.
int hcipico_line_editor_save_history(hcipico_line_editor *editor, const char *path);

/// Restores the terminal and frees the editor.
void hcipico_line_editor_close(hcipico_line_editor *editor);

#endif
