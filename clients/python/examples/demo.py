#!/usr/bin/env python3
"""A real Wharf session, end to end, printed as a transcript.

Run by `make demo`. Standard library only: it frames messages itself, so what you see is
exactly what goes over the pipe. The dialogs are answered by Wharf's script presenter
(`--presenter script:FILE`), standing in for a human.
"""
import base64
import json
import os
import pathlib
import subprocess
import sys
import tempfile

COLOR = sys.stdout.isatty()


def show(arrow, text, color):
    print(f"\033[{color}m{arrow} {text}\033[0m" if COLOR else f"{arrow} {text}")


class Session:
    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0
        self.inbox = []

    def send(self, message):
        body = json.dumps(message).encode()
        show("→", body.decode(), 36)
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.process.stdout.readline()
            if line == b"":
                raise SystemExit("wharf closed its output")
            if line == b"\r\n":
                break
            name, _, value = line.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        message = json.loads(self.process.stdout.read(length))
        show("←", json.dumps(message), 32)
        return message

    def wait_for(self, matches):
        """The first message (already received or next to come) that `matches`."""
        for message in self.inbox:
            if matches(message):
                self.inbox.remove(message)
                return message
        while True:
            message = self.receive()
            if matches(message):
                return message
            self.inbox.append(message)

    def request(self, method, params=None):
        self.next_id += 1
        request_id = self.next_id
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        reply = self.wait_for(lambda m: m.get("id") == request_id and "method" not in m)
        if "error" in reply:
            raise SystemExit(f"{method} failed: {reply['error']}")
        return reply["result"]

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def ending(self, dialog_id):
        return self.wait_for(
            lambda m: m.get("method") in ("dialog/completed", "dialog/cancelled")
            and m["params"]["dialogId"] == dialog_id
        )


def make_sample_folder(root):
    (root / "photos").mkdir()
    (root / "photos" / "beach.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    (root / "photos" / "notes.txt").write_text("not a photo\n")
    (root / "export").mkdir()
    script = [
        {"expect": {"kind": "importer", "allowedContentTypes": ["public.image"]}},
        {"choose": ["photos/beach.png"]},
        {"expect": {"kind": "exporter", "filename": "report.txt"}},
        {"save": {"path": "export/report.txt"}},
        {"save": {"path": "export/summary.md"}},
    ]
    (root / "script.json").write_text(json.dumps(script, indent=2))
    return root / "script.json"


def main():
    wharf = sys.argv[1] if len(sys.argv) > 1 else "wharf"
    with tempfile.TemporaryDirectory(prefix="wharf-demo-") as folder:
        root = pathlib.Path(folder)
        script = make_sample_folder(root)
        print(f"# Sample folder {root}, dialogs answered by {script.name}:")
        print(script.read_text())
        session = Session([wharf, "--presenter", f"script:{script}", "--state-dir", ":memory:"])

        print("\n# The editor starts wharf and introduces itself")
        session.request("initialize", {"processId": os.getpid(), "clientInfo": {"name": "demo-editor"}})
        session.notify("initialized", {})

        print("\n# It asks for an image: fileImporter(allowedContentTypes: [.image])")
        dialog = session.request("presentImporter", {"allowedContentTypes": ["public.image"]})["dialogId"]
        url = session.ending(dialog)["params"]["urls"][0]

        print("\n# The picked URL is security-scoped: start access, read, stop access")
        lease = session.request("resolveAccess", {"url": url})
        data = session.request("readFile", {"accessId": lease["accessId"], "length": 8})
        print(f"   (first bytes: {base64.b64decode(data['base64'])!r})")
        session.request("releaseAccess", {"accessId": lease["accessId"]})

        print("\n# It exports a text document: fileExporter(document:contentType: .plainText)")
        dialog = session.request("presentExporter", {
            "documents": [{"filename": "report", "writableContentTypes": ["public.plain-text"],
                           "contents": {"text": "Quarterly report\n"}}],
            "contentType": "public.plain-text",
        })["dialogId"]
        session.ending(dialog)

        print("\n# And a document it writes lazily, once the human has chosen where")
        dialog = session.request("presentExporter", {
            "documents": [{"filename": "summary", "writableContentTypes": ["net.daringfireball.markdown"]}],
        })["dialogId"]
        snapshot = session.wait_for(lambda m: m.get("method") == "exporter/snapshot")
        session.send({"jsonrpc": "2.0", "id": snapshot["id"],
                      "result": {"text": "# Summary\n\nWritten on demand.\n"}})
        session.ending(dialog)

        print("\n# The editor quits")
        session.request("shutdown")
        session.notify("exit")
        code = session.process.wait(timeout=10)

        print(f"\nwharf exited with status {code}. The export folder now holds:")
        for path in sorted((root / "export").iterdir()):
            print(f"  {path.name}: {path.read_text()!r}")
    sys.exit(code)


if __name__ == "__main__":
    main()
