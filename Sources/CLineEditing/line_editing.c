#include "line_editing.h"

#include <histedit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hcipico_line_editor {
    EditLine *editline;
    History *history;
    char prompt[64];
    char line[4096];
};

static char *current_prompt(EditLine *editline) {
    hcipico_line_editor *editor = NULL;
    el_get(editline, EL_CLIENTDATA, &editor);
    return editor != NULL ? editor->prompt : "";
}

hcipico_line_editor *hcipico_line_editor_open(const char *program) {
    hcipico_line_editor *editor = calloc(1, sizeof *editor);
    if (editor == NULL) return NULL;
    editor->editline = el_init(program, stdin, stdout, stderr);
    editor->history = history_init();
    if (editor->editline == NULL || editor->history == NULL) {
        hcipico_line_editor_close(editor);
        return NULL;
    }
    HistEvent event;
    history(editor->history, &event, H_SETSIZE, 500);
    history(editor->history, &event, H_SETUNIQUE, 1);
    el_set(editor->editline, EL_CLIENTDATA, editor);
    el_set(editor->editline, EL_PROMPT, current_prompt);
    el_set(editor->editline, EL_EDITOR, "emacs");
    el_set(editor->editline, EL_HIST, history, editor->history);
    // While a line is read, Ctrl-C is a key that clears it, not a signal that ends the console.
    el_set(editor->editline, EL_SETTY, "-d", "-isig", NULL);
    el_set(editor->editline, EL_BIND, "^C", "em-kill-line", NULL);
    return editor;
}

const char *hcipico_line_editor_read(hcipico_line_editor *editor, const char *prompt) {
    snprintf(editor->prompt, sizeof editor->prompt, "%s", prompt);
    int count = 0;
    const char *text = el_gets(editor->editline, &count);
    if (text == NULL || count <= 0) return NULL;
    size_t length = strcspn(text, "\n");
    if (length >= sizeof editor->line) length = sizeof editor->line - 1;
    memcpy(editor->line, text, length);
    editor->line[length] = '\0';
    return editor->line;
}

void hcipico_line_editor_remember(hcipico_line_editor *editor, const char *line) {
    HistEvent event;
    if (line[0] != '\0') history(editor->history, &event, H_ENTER, line);
}

int hcipico_line_editor_load_history(hcipico_line_editor *editor, const char *path) {
    HistEvent event;
    return history(editor->history, &event, H_LOAD, path) < 0 ? -1 : 0;
}

int hcipico_line_editor_save_history(hcipico_line_editor *editor, const char *path) {
    HistEvent event;
    return history(editor->history, &event, H_SAVE, path) < 0 ? -1 : 0;
}

void hcipico_line_editor_close(hcipico_line_editor *editor) {
    if (editor == NULL) return;
    if (editor->editline != NULL) el_end(editor->editline);
    if (editor->history != NULL) history_end(editor->history);
    free(editor);
}
