#!/usr/bin/env python3
"""A real Wharf session, end to end, printed as a transcript.

Run by `make demo`. Standard library only: it frames messages itself, so what you see is
exactly what goes over the pipe.
"""
import json
import subprocess
import sys


COLOR = sys.stdout.isatty()


def show(arrow, text, color):
    print(f"\033[{color}m{arrow} {text}\033[0m" if COLOR else f"{arrow} {text}")


class Session:
    def __init__(self, wharf):
        self.process = subprocess.Popen(
            [wharf, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.next_id = 0

    def send(self, message):
        body = json.dumps(message).encode()
        show("→", body.decode(), 36)
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.process.stdout.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        message = json.loads(self.process.stdout.read(length))
        show("←", json.dumps(message), 32)
        return message

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id and "method" not in reply:
                return reply

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)


def main():
    wharf = sys.argv[1] if len(sys.argv) > 1 else "wharf"
    session = Session(wharf)
    print("# The editor starts wharf and introduces itself")
    session.request("initialize", {"processId": None, "clientInfo": {"name": "demo-editor"}})
    session.notify("initialized", {})
    print("\n# A health check")
    session.request("ping", {})
    print("\n# The editor quits")
    session.request("shutdown")
    session.notify("exit")
    code = session.process.wait(timeout=10)
    print(f"\nwharf exited with status {code}")
    sys.exit(code)


if __name__ == "__main__":
    main()
