"""Drives `hcipico console sim --fast` on a pseudo-terminal as a person would: text, then Ctrl-C at
the prompt (the line must be cleared, not run and not a signal), `help`, Up (recalls it), Enter,
Ctrl-D (leaves, status 0); then a second session with the same history file (argv[2]), where Up at
the first prompt recalls the first session's `help`. Prints what the test checks. Used by
ConsoleCommandTests."""

import os, pty, select, sys, time
binary = sys.argv[1]
os.environ["HCIPICO_HISTORY"] = sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(binary, [binary, "console", "sim", "--fast"])
out = b""
def wait_for(text, timeout=20):
    global out
    end = time.time() + timeout
    while text not in out and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
    return text in out
assert wait_for(b"mscript> "), out
os.write(fd, b"bogus_line")
time.sleep(0.3)
os.write(fd, b"\x03")           # Ctrl-C at the prompt: clears the line
time.sleep(0.3)
os.write(fd, b"help\r")
assert wait_for(b":save FILE"), out
os.write(fd, b"\x1b[A")          # Up: recalls "help"
time.sleep(0.3)
os.write(fd, b"\r")
mark = len(out)
assert wait_for(b"mscript> "), out
time.sleep(0.5)
os.write(fd, b"\x04")            # Ctrl-D: leaves
_, status = os.waitpid(pid, 0)
try:
    while True:
        r, _, _ = select.select([fd], [], [], 0.2)
        if not r: break
        chunk = os.read(fd, 4096)
        if not chunk: break
        out += chunk
except OSError:
    pass
text = out.decode("utf-8", "replace")
print("status", os.waitstatus_to_exitcode(status))
print("help shown", text.count("Ctrl-C clears the line"))
print("bogus ran", "bogus_line" in text.split("help")[-1], "device error" in text)

# A second session: the history file brings the first session's lines back.
pid, fd = pty.fork()
if pid == 0:
    os.execv(binary, [binary, "console", "sim", "--fast"])
out = b""
assert wait_for(b"mscript> "), out
os.write(fd, b"\x1b[A")          # Up: the last line of the first session
time.sleep(0.3)
os.write(fd, b"\r")
wait_for(b"Ctrl-C clears the line", 10)
time.sleep(0.3)
os.write(fd, b"\x04")
os.waitpid(pid, 0)
print("help recalled from the last session", "Ctrl-C clears the line" in out.decode("utf-8", "replace"))
