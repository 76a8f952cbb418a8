"""The few JSON-RPC steps the tests' stand-in apps take with `wharf` over stdio (LSP framing)."""
import json

ENDINGS = ("dialog/cancelled", "dialog/completed", "dialog/failed")


def send(process, message):
    body = json.dumps(message).encode()
    process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    process.stdin.flush()


def receive(process):
    length = None
    while True:
        line = process.stdout.readline()
        if not line:
            raise EOFError("wharf closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(process.stdout.read(length))


def answer(process, request_id):
    """The answer to `request_id`, skipping what comes before it."""
    while True:
        message = receive(process)
        if message.get("id") == request_id:
            return message


def ending(process):
    """The notification that ends the dialog, or None when wharf closes its output first."""
    while True:
        try:
            message = receive(process)
        except EOFError:
            return None
        if message.get("method") in ENDINGS:
            return message


def shut_down(process, request_id):
    """`shutdown` (as `request_id`), then `exit`; waits for wharf to end."""
    send(process, {"jsonrpc": "2.0", "id": request_id, "method": "shutdown"})
    answer(process, request_id)
    send(process, {"jsonrpc": "2.0", "method": "exit"})
    process.wait(timeout=10)
