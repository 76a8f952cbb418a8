#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus: one file per conversation, the bytes a client would send.

Sources:
- every conformance transcript in protocol/conformance/*.json (its `send`, `sendBody` and
  `sendRaw` steps, in its framing, captures such as "$dialogId" replaced by 1 and "$fixtures"
  by a path under /tmp), when that folder exists;
- the hand-written conversations below, each in both framings, which cover what the
  transcripts may not: every lifecycle method, batches, cancellation, traces, bad params,
  bad framing and bad JSON.

Usage: make-seeds.py OUTPUT_DIRECTORY FIXTURES_DIRECTORY [REPOSITORY_ROOT]

FIXTURES_DIRECTORY (absolute) is created with a few files that the dialog and content-type
seeds name; the transcripts' "$fixtures" point there too (their own fixtures are not created).
"""
import hashlib
import json
import re
import sys
from pathlib import Path


def frame(body: bytes, framing: str) -> bytes:
    if framing == "ndjson":
        return body + b"\n"
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def dumps(message) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "fuzz"}, "capabilities": {}}}
FRONTEND = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "fuzz"}, "capabilities": {"presentsDialogs": True}}}
EXIT = {"jsonrpc": "2.0", "method": "exit"}


def request(id_, method, params=None):
    message = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method, params=None):
    message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


# Each conversation is a list of messages (dicts or lists, serialised) or raw bodies (bytes,
# framed as they are).
CONVERSATIONS = {
    "lifecycle": [INIT, notification("initialized", {}), request(2, "ping", {}), request(3, "shutdown"), EXIT],
    "before-initialize": [request(1, "ping"), notification("initialized"), INIT, request(2, "ping"), EXIT],
    "initialize-twice": [INIT, request(2, "initialize", {}), EXIT],
    "initialize-params": [request(1, "initialize", {"processId": None, "clientInfo": {"name": "", "version": "1"},
                                                    "capabilities": {"presentsDialogs": True}, "trace": "verbose"}), EXIT],
    "initialize-bad-params": [request(1, "initialize", {"processId": "x", "trace": 3, "clientInfo": []}), INIT, EXIT],
    "after-shutdown": [INIT, request(2, "shutdown"), request(3, "ping"), EXIT],
    "batch": [INIT, [request(2, "ping"), notification("initialized"), 7, request(3, "no/such")], [], [notification("x")], EXIT],
    "cancel": [INIT, notification("$/cancelRequest", {"id": 2}), request(2, "ping"), notification("$/cancelRequest", {"id": "x"}), EXIT],
    "trace": [INIT, notification("$/setTrace", {"value": "verbose"}), request(2, "ping", {}), notification("$/setTrace", {"value": "messages"}),
              request(3, "ping"), notification("$/setTrace", {"value": "off"}), EXIT],
    "ids": [INIT, request("1", "ping"), request(9007199254740993, "ping"), request(None, "ping"), request(1.5, "ping"),
            request(-9223372036854775808, "ping"), EXIT],
    "invalid-messages": [INIT, 1, None, "x", {"method": 1}, {"jsonrpc": "1.0", "id": 2, "method": "ping"}, {"jsonrpc": "2.0", "id": True, "method": "ping"},
                         {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": 5}, request(4, "rpc.discover"), request(5, "$/unknown"),
                         {"jsonrpc": "2.0", "id": 6, "result": {}}, {"jsonrpc": "2.0", "id": 7, "error": {"code": 1, "message": "m"}}, EXIT],
    "bad-json": [INIT, b'{"jsonrpc":"2.0","id":2,"method":"ping"', b"\xff\xfe", b'{"a":"\\ud800"}', b"[" * 3000 + b"]" * 3000,
                 b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}', b'{"a":"\\u0000"}', EXIT],
    "unicode": [INIT, request(2, "ping", {"name": "é\u0000𝄞"}), request("ключ", "ping"), EXIT],
    # Dialogs with the client as presenter. Dialog ids are `dlg-1`, `dlg-2`… in each input,
    # since the fuzz target starts a fresh server per input.
    "importer": [FRONTEND,
                 request(2, "presentImporter", {"allowedContentTypes": ["public.plain-text"], "allowsMultipleSelection": True,
                                                "presentationId": "p", "options": {"defaultDirectory": "$FIXTURES", "title": "t",
                                                "browserOptions": ["includeHiddenFiles", "enumeratePackages"],
                                                "urlEnabled": {"all": [{"nameMatches": "*.txt"}, {"not": {"isHidden": True}},
                                                               {"any": [{"sizeAtMost": 100}, {"modifiedAfter": "2026-01-31T12:00:00Z"}]}]},
                                                "customizationId": "c", "timeoutMs": 100000}}),
                 request(3, "dialog/list", {"dialogId": "dlg-1", "limit": 2}),
                 request(4, "dialog/list", {"dialogId": "dlg-1", "directory": "$FIXTURES/sub", "cursor": "x"}),
                 request(5, "dialog/choose", {"dialogId": "dlg-1", "urls": ["$FIXTURES/a.txt", "file://$FIXTURES/b.txt"]}),
                 request(6, "listAccess"), request(7, "resolveAccess", {"url": "file://$FIXTURES/a.txt"}),
                 request(8, "createBookmark", {"url": "file://$FIXTURES/a.txt"}), request(9, "revokeAccess", {"url": "file://$FIXTURES/a.txt"}),
                 request(10, "shutdown"), EXIT],
    "importer-ends": [FRONTEND,
                      request(2, "presentImporter", {"allowedContentTypes": ["public.folder"], "presentationId": "p"}),
                      request(3, "presentImporter", {"allowedContentTypes": ["public.item"], "presentationId": "p"}),
                      request(4, "dialog/dismiss", {"dialogId": "dlg-1"}), request(5, "cancel", {"dialogId": "dlg-1"}),
                      request(6, "presentImporter", {"allowedContentTypes": ["public.image"], "options": {"timeoutMs": 1}}),
                      request(7, "cancel", {"dialogId": "dlg-2"}), request(8, "cancel", {"dialogId": "nope"}), EXIT],
    "exporter": [FRONTEND,
                 request(2, "presentExporter", {"documents": [{"filename": "out", "writableContentTypes": ["public.plain-text"],
                                                               "contents": {"text": "hello"}},
                                                              {"writableContentTypes": ["public.data"], "contents": {"base64": "aGk="}}],
                                                "contentTypes": ["public.plain-text"], "defaultFilename": "doc",
                                                "options": {"filenameLabel": "Name", "defaultDirectory": "$FIXTURES"}}),
                 request(3, "dialog/choose", {"dialogId": "dlg-1", "url": "$FIXTURES/sub", "overwrite": True}),
                 request(4, "presentExporter", {"documents": [{"writableContentTypes": ["public.json"]}], "contentType": "public.json"}),
                 request(5, "dialog/choose", {"dialogId": "dlg-2", "url": "$FIXTURES/lazy.json", "contentType": "public.json"}),
                 {"jsonrpc": "2.0", "id": 1, "result": {"text": "{}"}},
                 request(6, "presentExporter", {"documents": []}), EXIT],
    "no-presenter": [INIT, request(2, "presentImporter", {"allowedContentTypes": ["public.item"]}),
                     request(3, "presentExporter", {"documents": [{"writableContentTypes": ["public.data"], "contents": {"path": "$FIXTURES/a.txt"}}]}), EXIT],
    "access": [INIT, request(2, "resolveAccess", {"bookmark": "AAAA"}), request(3, "releaseAccess", {"accessId": "x"}),
               request(4, "readFile", {"accessId": "x", "offset": 0, "length": 10}),
               request(5, "writeFile", {"accessId": "x", "base64": "aGk=", "offset": 1, "truncate": True}), EXIT],
    "content-types": [INIT, request(2, "contentTypes/describe", {"identifiers": ["public.png", "dyn.x", "nope"]}),
                      request(3, "contentTypes/identify", {"paths": ["$FIXTURES/a.txt", "$FIXTURES", "/nope"], "sniff": True, "followSymlinks": False}),
                      request(4, "contentTypes/conforms", {"identifier": "public.png", "to": "public.image"}),
                      request(5, "contentTypes/fromFilenameExtension", {"filenameExtension": "md", "conformingTo": "public.text"}),
                      request(6, "contentTypes/fromMIMEType", {"mimeType": "text/x-foo"}),
                      request(7, "contentTypes/declare", {"types": [{"identifier": "com.example.doc", "conformsTo": ["public.data"],
                                                                     "filenameExtensions": ["exd"], "mimeTypes": ["application/x-exd"], "description": "d"}]}),
                      request(8, "contentTypes/filters", {"identifiers": ["public.image", "com.example.doc", "public.folder"]}), EXIT],
}

RAW = {
    "garbage-before-header": b"hello\r\n\r\nContent-Length: 2\r\n\r\n{}",
    "header-variants": b"content-length:2  \r\nContent-Type: application/json\r\n\r\n{}CONTENT-LENGTH:   4\r\n\r\nnull",
    "bad-length": b"Content-Length: x\r\n\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
    "missing-length": b"Content-Type: a\r\n\r\n{}",
    "truncated": b"Content-Length: 10\r\n\r\n{}",
    "ndjson-blank-lines": b"\n\r\n  \n" + dumps(INIT) + b"\r\n\n" + dumps(request(2, "ping")),
}


def conversation_bytes(messages, framing: str, fixtures: str) -> bytes:
    out = b""
    for message in messages:
        body = message if isinstance(message, bytes) else dumps(message)
        out += frame(body.replace(b"$FIXTURES", fixtures.encode()), framing)
    return out


CAPTURE = re.compile(r"^\$[A-Za-z_][A-Za-z0-9_]*$")


def substitute(value, fixtures: str):
    if isinstance(value, str):
        if CAPTURE.match(value) and value not in ("$fixtures", "$fixturesURL"):
            return "dlg-1" if "dialog" in value.lower() else 1
        return value.replace("$fixturesURL", "file://" + fixtures).replace("$fixtures", fixtures)
    if isinstance(value, list):
        return [substitute(element, fixtures) for element in value]
    if isinstance(value, dict):
        return {key: substitute(element, fixtures) for key, element in value.items()}
    return value


def transcript_bytes(transcript: dict, fixtures: str) -> bytes:
    framing = transcript.get("server", {}).get("framing", "lsp")
    out = b""
    for step in transcript.get("steps", []):
        if "send" in step:
            out += frame(dumps(substitute(step["send"], fixtures)), framing)
        elif "sendBody" in step:
            out += frame(substitute(step["sendBody"], fixtures).encode(), framing)
        elif "sendRaw" in step:
            out += substitute(step["sendRaw"], fixtures).encode()
    return out


def make_fixtures(directory: Path) -> None:
    """A small folder to browse, pick from and export into."""
    (directory / "sub" / "deeper").mkdir(parents=True, exist_ok=True)
    (directory / "a.txt").write_text("hello\n")
    (directory / "b.txt").write_text("world\n")
    (directory / ".hidden.txt").write_text("hidden\n")
    (directory / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    (directory / "sub" / "notes.md").write_text("# notes\n")
    (directory / "Bundle.app" / "Contents").mkdir(parents=True, exist_ok=True)
    link = directory / "link.txt"
    if not link.is_symlink():
        link.symlink_to("a.txt")


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    output = Path(sys.argv[1])
    fixtures = str(Path(sys.argv[2]).resolve())
    root = Path(sys.argv[3]) if len(sys.argv) > 3 else Path(__file__).resolve().parents[2]
    output.mkdir(parents=True, exist_ok=True)
    make_fixtures(Path(fixtures))
    seeds = {}
    for name, messages in CONVERSATIONS.items():
        for framing in ("lsp", "ndjson"):
            seeds[f"{name}.{framing}"] = conversation_bytes(messages, framing, fixtures)
    for name, raw in RAW.items():
        seeds[f"raw-{name}"] = raw
    transcripts = sorted((root / "protocol" / "conformance").glob("*.json"))
    for path in transcripts:
        try:
            seeds[f"conformance-{path.stem}"] = transcript_bytes(json.loads(path.read_text()), fixtures)
        except (ValueError, KeyError, TypeError) as error:
            print(f"skipped {path}: {error}", file=sys.stderr)
    for name, data in seeds.items():
        # The content hash keeps libFuzzer's own naming convention out of our way.
        (output / f"seed-{name}-{hashlib.sha1(data).hexdigest()[:8]}").write_bytes(data)
    print(f"{len(seeds)} seeds ({len(transcripts)} from conformance transcripts) in {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
