"""An app using `wharf --presenter TOOL` over stdio, run by the tests in a tmux pane: it presents
an importer of text files with the options read from TITLE_FILE (a JSON object: its title and
message), and writes REPORT_FILE with the notification that ended the dialog.

Usage: titled_client.py WHARF TOOL TITLE_FILE REPORT_FILE"""
import json
import subprocess
import sys

from wire import answer, ending, send, shut_down


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
    ended = ending(process)
    shut_down(process, 3)
    with open(report, "w") as file:
        json.dump(ended, file)


main()
