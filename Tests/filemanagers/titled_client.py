"""An app using `wharf --presenter TOOL` over stdio, run by the tests in a tmux pane: it presents
an importer of text files with the options read from TITLE_FILE (a JSON object: its title and
message), and writes REPORT_FILE with the notification that ended the dialog.

Usage: titled_client.py WHARF TOOL TITLE_FILE REPORT_FILE"""
import json
import subprocess
import sys

from cancelling_client import answer, receive, send


def main():
    wharf, tool, texts, report = sys.argv[1:5]
    with open(texts) as file:
        options = json.load(file)
    process = subprocess.Popen([wharf, "--presenter", tool, "--state-dir", ":memory:"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "titled-client"}}})
    answer(process, 1)
    send(process, {"jsonrpc": "2.0", "id": 2, "method": "presentImporter",
                   "params": {"allowedContentTypes": ["public.plain-text"], "allowsMultipleSelection": False, "options": options}})
    answer(process, 2)
    ended = None
    while ended is None:
        message = receive(process)
        if message.get("method") in ("dialog/cancelled", "dialog/completed", "dialog/failed"):
            ended = message
    send(process, {"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
    answer(process, 3)
    send(process, {"jsonrpc": "2.0", "method": "exit"})
    process.wait(timeout=10)
    with open(report, "w") as file:
        json.dump(ended, file)


main()
