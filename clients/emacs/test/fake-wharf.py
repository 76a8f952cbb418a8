"""A stand-in for wharf that misbehaves on purpose, for what the real one never does on demand.

    python3 fake-wharf.py MODE

Modes:
  wedged        answers initialize, then nothing (a wharf stopped or overloaded).
  early-events  answers initialize; a presentImporter's ending (dialog d1, cancelled by the user)
                comes before the answer naming d1, as it may when requests are batched.
"""
import json
import sys

MODE = sys.argv[1]


def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(message):
    body = json.dumps(dict(message, jsonrpc="2.0")).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


while True:
    message = read()
    if message is None:
        break
    method, ident = message.get("method"), message.get("id")
    if method == "initialize":
        send({"id": ident, "result": {"serverInfo": {"name": "fake-wharf"}, "protocolVersion": "0.1",
                                      "capabilities": {"presenter": "frontend", "presenters": ["frontend"]}}})
    elif method == "exit":
        break
    elif MODE == "early-events" and method == "presentImporter":
        send({"method": "dialog/presentationChanged", "params": {"dialogId": "d1", "isPresented": False}})
        send({"method": "dialog/cancelled", "params": {"dialogId": "d1", "kind": "importer", "reason": "user"}})
        send({"id": ident, "result": {"dialogId": "d1"}})
    elif MODE == "early-events" and method == "shutdown":
        send({"id": ident, "result": None})
