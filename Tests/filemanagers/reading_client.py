"""An editor-like app using `wharf --presenter lf` over stdio, run by the tests in a tmux pane.

The app's terminal reader (a process group of its own, with this one as its parent, as a
shell's job is) has the terminal's foreground when wharf starts lf, and wharf runs in a group
of its own. While lf has the terminal, the reader reads it, as an editor's input loop does,
and is stopped for it (SIGTTIN). When the dialog ends, wharf must give the terminal back to the
reader's group and resume it: the reader then takes a key. REPORT_FILE gets the notification
that ended the dialog and the key read.

Usage: reading_client.py WHARF REPORT_FILE"""
import json
import os
import signal
import subprocess
import sys

from wire import answer, ending, send, shut_down

READER = r"""
import os, signal, sys, time
while os.tcgetpgrp(0) != os.getpgrp():      # until the app has handed it the terminal
    time.sleep(0.02)
while os.tcgetpgrp(0) == os.getpgrp():      # until lf has it
    time.sleep(0.02)
signal.signal(signal.SIGTTIN, signal.SIG_DFL)
sys.stdout.write(os.read(0, 1).decode())    # stopped here until resumed in the foreground
"""


def main():
    wharf, report = sys.argv[1:3]
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    reader = subprocess.Popen([sys.executable, "-c", READER], stdout=subprocess.PIPE, process_group=0)
    os.tcsetpgrp(0, reader.pid)
    process = subprocess.Popen([wharf, "--presenter", "lf", "--state-dir", ":memory:"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, process_group=0)
    send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "reading-client"}}})
    answer(process, 1)
    send(process, {"jsonrpc": "2.0", "id": 2, "method": "presentImporter",
                   "params": {"allowedContentTypes": ["public.plain-text"], "allowsMultipleSelection": False}})
    answer(process, 2)
    ended = ending(process)
    key = reader.communicate(timeout=60)[0].decode()
    os.tcsetpgrp(0, os.getpgrp())
    shut_down(process, 3)
    with open(report, "w") as file:
        json.dump({"notification": ended, "key": key}, file)


main()
