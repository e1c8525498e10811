#!/usr/bin/env python3
"""Writes hcipico(1) in roff from what the binary says of its commands.

Usage: hcipico --experimental-dump-help | Tools/deb/manpage.py VERSION DATE > hcipico.1

The input is swift-argument-parser's description of the command tree (every subcommand, option,
flag and argument with its help text), so the page says what `hcipico help COMMAND` says and cannot
drift from the binary it ships with.
"""

import json
import sys


def roff(text):
    """Text as roff: backslashes and hyphens escaped, no line starting with a control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def synopsis_of(argument):
    """How an argument is written: --name <value>, -f, <positional>."""
    names = argument.get("names", [])
    value = argument.get("valueName", "value")
    if argument["kind"] == "positional":
        shown = f"<{value}>"
    else:
        # Long names first (--name, or -name for a long name with a single dash), then short ones (-n).
        spelled = [("--" if n["kind"] == "long" else "-") + n["name"] for n in names if n["kind"] != "short"]
        spelled += ["-" + n["name"] for n in names if n["kind"] == "short"]
        shown = ", ".join(spelled)
        if argument["kind"] == "option":
            shown += f" <{value}>"
    if argument.get("isRepeating"):
        shown += " ..."
    return shown


def command_section(command, path, out):
    """One command: its abstract, discussion and arguments; then its subcommands in turn."""
    if not command.get("shouldDisplay", True) or command["commandName"] == "help":
        return
    name = " ".join(path)
    out.append(f".SS {roff(name)}")
    if command.get("abstract"):
        out.append(roff(command["abstract"]))
    for paragraph in command.get("discussion", "").split("\n\n"):
        if paragraph.strip():
            out.append(".PP")
            out.append(roff(paragraph.strip()))
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True):
            continue
        out.append(".TP")
        out.append(f"\\fB{roff(synopsis_of(argument))}\\fR")
        help_text = argument.get("abstract", "")
        if argument.get("defaultValue") not in (None, ""):
            help_text += f" (default: {argument['defaultValue']})"
        out.append(roff(help_text) if help_text else "\\&")
        if argument.get("discussion"):
            out.append(roff(argument["discussion"]))
    for sub in command.get("subcommands", []):
        command_section(sub, path + [sub["commandName"]], out)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: hcipico --experimental-dump-help | manpage.py VERSION DATE")
    version, date = sys.argv[1], sys.argv[2]
    root = json.load(sys.stdin)["command"]
    out = [
        f'.TH HCIPICO 1 "{date}" "hcipico {roff(version)}" "User Commands"',
        ".SH NAME",
        f"hcipico \\- {roff(root.get('abstract', ''))}",
        ".SH SYNOPSIS",
        "\\fBhcipico\\fR \\fICOMMAND\\fR [\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        "Each command below is described as \\fBhcipico help\\fR \\fICOMMAND\\fR describes it.",
        "The rig runs as the systemd service \\fBhcipico\\-rig\\fR with the configuration",
        "\\fI/etc/hcipico/rig.toml\\fR; its journal and bonds are kept in \\fI/var/lib/hcipico\\-rig\\fR.",
    ]
    out.append(".SH COMMANDS")
    for sub in root.get("subcommands", []):
        command_section(sub, [sub["commandName"]], out)
    out += [
        ".SH EXIT STATUS",
        "0 on success; the statuses of failures are listed in /usr/share/doc/hcipico/ExitStatus.md.",
        ".SH FILES",
        ".TP",
        "\\fI/etc/hcipico/rig.toml\\fR",
        "The rig's configuration (a conffile: upgrades keep your edits).",
        ".TP",
        "\\fI/usr/share/hcipico/examples/\\fR",
        "Example MethodSCRIPT files and rig configuration.",
        ".SH SEE ALSO",
        "\\fBsystemctl\\fR(1), \\fBjournalctl\\fR(1)",
    ]
    print("\n".join(out))


if __name__ == "__main__":
    main()
