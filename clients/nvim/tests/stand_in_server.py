#!/usr/bin/env python3
"""A JSON-RPC peer for tests/test_rpc.lua, on standard input and output with Content-Length
framing as Wharf speaks it, that gives on cue the answers a real wharf gives only in races or
at its end: a request answered -32800, one never answered as the process exits, a request of
its own to the client, nulls, a large answer. Each request's method says which."""
import json
import sys

stdin, stdout = sys.stdin.buffer, sys.stdout.buffer


def read():
    length = None
    while True:
        line = stdin.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return json.loads(stdin.read(length))


def send(message):
    body = json.dumps(dict(message, jsonrpc="2.0")).encode()
    stdout.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    stdout.flush()


while True:
    message = read()
    if message is None:
        sys.exit(0)
    method, id, params = message.get("method"), message.get("id"), message.get("params") or {}
    if id is None:
        continue
    if method == "cancelled":
        send({"id": id, "error": {"code": -32800, "message": "request %s was cancelled" % id}})
    elif method == "ask":
        # A request to the client first; its answer is this request's result.
        send({"id": "question-1", "method": "client/question", "params": params})
        answer = read()
        send({"id": id, "result": answer})
    elif method == "nulls":
        send({"id": id, "result": {"kept": 1, "gone": None, "list": [1, None, 3], "nested": {"gone": None}}})
    elif method == "large":
        send({"id": id, "result": {"text": "x" * params["size"]}})
    elif method == "die":
        sys.stderr.write(params["words"] + "\n")
        sys.stderr.flush()
        sys.exit(3)
    else:
        send({"id": id, "result": "pong"})
