#!/usr/bin/env python3
"""Writes packaging/wharf.order: the functions a `wharf` runs, in the order the linker should
lay them out (`make link-order`; `make release` links with it).

Why: the release binary is 6.5 MB of machine code (the Swift runtime is linked in), and a
process's resident memory counts every page of it the kernel maps, which is more than the pages
it runs: a fault maps the whole page-cache folio around it. Laid out as built, the few thousand
functions a session runs are spread over most of the text, so most of it ended up resident.
Placed together first (with `-function-sections`, lld's `--symbol-ordering-file`), they fill a
few hundred KiB. A name the binary no longer has is skipped by the linker, so an old list only
makes the layout less tight, never wrong; regenerate it after large changes.

How: each session below runs the release binary under callgrind (valgrind), which names every
function executed; the list is the sessions' functions in session order (start-up and pings
first: what every client runs, and what the idle memory figure in bench/ measures), each name
once.

Usage: packaging/link-order.py BINARY OUTPUT
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Peer:
    """The server under callgrind, over pipes, with just enough LSP framing to wait for replies."""

    def __init__(self, binary: str, arguments: list[str], profile: Path, environment: dict[str, str]):
        command = ["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=no",
                   f"--callgrind-out-file={profile}", binary, *arguments]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=environment)
        self.next_id = 0

    def send(self, method: str, params: dict | None = None, request: bool = True) -> int | None:
        message: dict = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        ident = None
        if request:
            self.next_id += 1
            ident = message["id"] = self.next_id
        self.process.stdin.write(frame(message))
        self.process.stdin.flush()
        return ident

    def read(self) -> dict:
        length = None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def call(self, method: str, params: dict | None = None) -> dict:
        ident = self.send(method, params)
        while True:
            message = self.read()
            if message.get("id") == ident and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def wait_for(self, method: str) -> dict:
        while True:
            message = self.read()
            if message.get("method") == method:
                return message["params"]

    def finish(self) -> None:
        self.call("shutdown")
        self.send("exit", request=False)
        self.process.stdin.close()
        if self.process.wait(timeout=120) != 0:
            raise RuntimeError(f"the server exited with status {self.process.returncode}")


def start_and_ping(peer: Peer) -> None:
    peer.call("initialize", {"processId": None})
    peer.send("initialized", {}, request=False)
    for _ in range(100):
        peer.call("ping", {})


def dialogs(work: Path):
    def session(peer: Peer) -> None:
        peer.call("initialize", {"processId": None})
        peer.send("initialized", {}, request=False)
        peer.call("presentImporter", {"allowedContentTypes": ["public.plain-text"]})
        peer.wait_for("dialog/completed")
        peer.call("presentExporter", {"documents": [{"filename": "note", "writableContentTypes": ["public.plain-text"],
                                                     "contents": {"text": "hello\n"}}], "contentType": "public.plain-text"})
        peer.wait_for("dialog/completed")
        for _ in range(20):
            peer.call("ping", {})
    script = work / "script.json"
    (work / "picked.txt").write_text("picked\n")
    script.write_text(json.dumps([{"choose": [str(work / "picked.txt")]},
                                  {"save": {"path": str(work / "saved.txt"), "overwrite": True}}]))
    return ["--presenter", f"script:{script}"], session


def executed_functions(profile: Path, binary: str) -> list[str]:
    """The functions of `binary` in a callgrind profile, in the order it names them."""
    objects: dict[str, str] = {}
    functions: dict[str, str] = {}
    current_object = None
    names: list[str] = []
    for line in profile.read_text(errors="replace").splitlines():
        match = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
        if match:
            kind, number, name = match.groups()
            if name:
                objects[number] = name
            if kind == "ob":
                current_object = objects[number]
            continue
        match = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
        if match:
            kind, number, name = match.groups()
            if name:
                functions[number] = name
            if kind == "fn" and current_object == binary:
                # callgrind tells apart two functions of one name with 'N; the symbol has none.
                names.append(re.sub(r"'\d+$", "", functions[number]))
    # Addresses without a symbol, and callgrind's own frames, are not symbols.
    return [name for name in names if not name.startswith("0x") and not name.startswith("(")]


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    binary, output = os.path.realpath(sys.argv[1]), Path(sys.argv[2])
    order: list[str] = []
    seen: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="wharf-link-order-") as temporary:
        work = Path(temporary)
        environment = dict(os.environ, XDG_STATE_HOME=str(work / "state"), HOME=str(work))
        environment.pop("DBUS_SESSION_BUS_ADDRESS", None)
        dialog_arguments, dialog_session = dialogs(work)
        # The first start creates the state database; the second opens it, as most starts do.
        sessions = [("first start", [], start_and_ping), ("later start", [], start_and_ping),
                    ("dialogs", dialog_arguments, dialog_session)]
        for name, arguments, session in sessions:
            profile = work / f"{len(order)}.callgrind"
            peer = Peer(binary, arguments, profile, environment)
            session(peer)
            peer.finish()
            functions = executed_functions(profile, binary)
            added = [function for function in functions if function not in seen]
            seen.update(added)
            order.extend(added)
            print(f"{name}: {len(functions)} functions, {len(added)} new", file=sys.stderr)
    output.write_text("".join(f"{name}\n" for name in order))
    print(f"wrote {len(order)} functions to {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
