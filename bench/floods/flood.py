#!/usr/bin/env python3
"""Peak memory of one `wharf` under a flood, for bench/floods/run.sh.

    flood.py readfile WHARF FILE [--requests 24] [--hold 2]
        A client has FILE (16 MiB) granted, pipelines REQUESTS readFile requests for all of it
        and reads nothing for HOLD seconds, then reads every answer. Every answer counts
        against the client's output budget, so the server stops reading instead of holding
        them all (issue 12: 24 such requests once took it from 11 MB to 645 MB).

    flood.py listing WHARF FOLDER [--dialogs 64]
        A presenter client opens DIALOGS importers on FOLDER (100,000 entries) and lists each
        with a page of one entry: every listing is kept for paging, within the cache's bounds
        (250,000 entries per client, 1,000,000 in all).

Prints one line of JSON: the server's idle and peak resident memory (VmRSS after
`initialize`, VmHWM at the end, in KiB), and what was checked. Exits 1 if an answer is
missing or wrong. NDJSON framing, pipes, a state store in memory.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def status_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for {pid}")


class Server:
    """A spawned wharf speaking NDJSON: requests written whole, messages read line by line."""

    def __init__(self, wharf: str, arguments: list[str]):
        self.process = subprocess.Popen([wharf, "--framing", "ndjson", "--state-dir", ":memory:", *arguments],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.output = self.process.stdout
        self.buffer = b""
        self.next_id = 0

    def send(self, method: str, params: dict) -> int:
        self.next_id += 1
        self.write([{"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}])
        return self.next_id

    def write(self, messages: list[dict]) -> None:
        self.process.stdin.write(b"".join(json.dumps(m, separators=(",", ":")).encode() + b"\n" for m in messages))
        self.process.stdin.flush()

    def message(self) -> dict:
        while b"\n" not in self.buffer:
            chunk = self.output.read(1 << 20)
            if not chunk:
                raise RuntimeError("the server closed its output")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def until(self, matches) -> dict:
        while True:
            message = self.message()
            if matches(message):
                return message

    def call(self, method: str, params: dict) -> dict:
        request = self.send(method, params)
        response = self.until(lambda m: m.get("id") == request and "method" not in m)
        if "error" in response:
            raise RuntimeError(f"{method}: {response['error']}")
        return response["result"]

    def initialize(self, presents: bool) -> None:
        self.call("initialize", {"clientInfo": {"name": "flood"}, "capabilities": {"presentsDialogs": presents}})

    def finish(self) -> int:
        peak = status_kib(self.process.pid, "VmHWM")
        self.call("shutdown", {})
        self.write([{"jsonrpc": "2.0", "method": "exit"}])
        self.process.wait(timeout=30)
        return peak


def readfile_flood(wharf: str, path: str, requests: int, hold: float) -> dict:
    size = os.path.getsize(path)
    with tempfile.TemporaryDirectory(prefix="wharf-flood-") as work:
        script = os.path.join(work, "script.json")
        with open(script, "w") as file:
            json.dump([{"choose": [path]}], file)
        server = Server(wharf, ["--presenter", "script:" + script])
        server.initialize(presents=False)
        idle = status_kib(server.process.pid, "VmRSS")
        dialog = server.call("presentImporter", {"allowedContentTypes": ["public.data"]})["dialogId"]
        completed = server.until(lambda m: m.get("method") == "dialog/completed" and m["params"]["dialogId"] == dialog)
        access = server.call("resolveAccess", {"url": completed["params"]["urls"][0]})["accessId"]
        first = server.next_id + 1
        server.write([{"jsonrpc": "2.0", "id": first + index, "method": "readFile",
                       "params": {"accessId": access, "offset": 0, "length": size}} for index in range(requests)])
        time.sleep(hold)  # the flood: nobody reads the answers meanwhile
        during = status_kib(server.process.pid, "VmHWM")
        server.next_id = first + requests - 1
        answered = 0
        expected = (size + 2) // 3 * 4
        while answered < requests:
            message = server.message()
            if first <= message.get("id", -1) < first + requests:
                result = message.get("result") or {}
                if len(result.get("base64", "")) != expected or result.get("eof") is not True:
                    raise RuntimeError(f"readFile {message['id']}: a wrong answer")
                answered += 1
        peak = server.finish()
        return {"idleKiB": idle, "peakWhileNotReadingKiB": during, "peakKiB": peak, "answers": answered,
                "bytesAnswered": answered * size}


def listing_flood(wharf: str, folder: str, dialogs: int) -> dict:
    server = Server(wharf, ["--max-dialogs-per-client", str(max(dialogs, 64))])
    server.initialize(presents=True)
    idle = status_kib(server.process.pid, "VmRSS")
    listed = 0
    for _ in range(dialogs):
        dialog = server.call("presentImporter", {"allowedContentTypes": ["public.item"],
                                                 "options": {"defaultDirectory": folder}})["dialogId"]
        page = server.call("dialog/list", {"dialogId": dialog, "limit": 1})
        if len(page["entries"]) != 1 or "nextCursor" not in page:
            raise RuntimeError("dialog/list: a wrong page")
        listed += 1
    peak = server.finish()
    return {"idleKiB": idle, "peakKiB": peak, "dialogsListed": listed}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", choices=["readfile", "listing"])
    parser.add_argument("wharf")
    parser.add_argument("target", help="the 16 MiB file, or the folder to list")
    parser.add_argument("--requests", type=int, default=24)
    parser.add_argument("--hold", type=float, default=2.0)
    parser.add_argument("--dialogs", type=int, default=64)
    args = parser.parse_args()
    try:
        if args.scenario == "readfile":
            result = readfile_flood(args.wharf, args.target, args.requests, args.hold)
        else:
            result = listing_flood(args.wharf, args.target, args.dialogs)
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as error:
        print(f"flood.py {args.scenario}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
