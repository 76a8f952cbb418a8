"""An app using `wharf --presenter lf` over stdio, run by the tests in a tmux pane (so that
wharf has the pane as its controlling terminal): it presents an importer, waits until the test
writes GO_FILE (lf is then on the screen), then, as GO_FILE says, cancels the dialog (`cancel`)
or ends wharf with SIGTERM (`term`), and writes REPORT_FILE: the notification that ended the
dialog, whether any lf is still running, and whether this process's group has the terminal's
foreground back.

Usage: cancelling_client.py WHARF GO_FILE REPORT_FILE"""
import json
import os
import signal
import subprocess
import sys
import time

from wire import answer, ending, send, shut_down

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from processes import alive, children  # noqa: E402


def main():
    wharf, go, report = sys.argv[1:4]
    process = subprocess.Popen([wharf, "--presenter", "lf", "--state-dir", ":memory:"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "cancelling-client"}}})
    answer(process, 1)
    send(process, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(process, {"jsonrpc": "2.0", "id": 2, "method": "presentImporter",
                   "params": {"allowedContentTypes": ["public.plain-text"], "allowsMultipleSelection": False}})
    dialog = answer(process, 2)["result"]["dialogId"]
    while not os.path.exists(go):
        time.sleep(0.05)
    lf_pids = children(process.pid, "lf")
    with open(go) as file:
        how = file.read().strip()
    if how == "term":
        process.send_signal(signal.SIGTERM)
        ended = ending(process)
        process.wait(timeout=10)
    else:
        send(process, {"jsonrpc": "2.0", "id": 3, "method": "cancel", "params": {"dialogId": dialog}})
        ended = ending(process)
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in lf_pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    if how != "term":
        # The terminal is given back by wharf's dialog thread once lf has gone: wait for that
        # before this script ends and the pane's `stty -g` looks.
        time.sleep(0.5)
        shut_down(process, 4)
    foreground = os.tcgetpgrp(0) == os.getpgrp()
    with open(report, "w") as file:
        json.dump({"notification": ended, "lf_running_before": bool(lf_pids), "lf_running": any(alive(pid) for pid in lf_pids),
                   "foreground_back": foreground, "status": process.returncode}, file)


if __name__ == "__main__":
    main()
