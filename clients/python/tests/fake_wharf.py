"""A stand-in for wharf that misbehaves on purpose, for what the real one never does on demand.

    python fake_wharf.py MODE

Modes:
  dies-mid-dialog   answers initialize and presentImporter, then exits with status 3 at the next
                    request without answering it.
  early-events      sends a dialog's notifications before the presentImporter answer.
  slow              answers every ping after one second.
  wedged            never answers a ping; on `$/cancelRequest` {id} it says so (notification
                    `fake/cancelRequest` {id}) and then answers that request anyway, late.
  late-present      answers presentImporter only after `$/cancelRequest` for it, with a dialog
                    (the answer crossed the cancel) whose first event came before the answer;
                    `cancel` ends that dialog as wharf does.
  asks              answers presentExporter with dialog d1 (left open); on the request
                    `fake/ask` {requests: [{method, params?}, …]} it sends each as a request of
                    its own to the client, and answers `fake/ask` with the client's answers
                    (result or error), in order.
"""
import json
import sys
import time

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), "..", "src"))
from wharf_client.framing import FrameReader, encode  # noqa: E402

MODE = sys.argv[1]
reader = FrameReader(sys.stdin.buffer)


def send(message):
    sys.stdout.buffer.write(encode(message))
    sys.stdout.buffer.flush()


def answer(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def notify(method, params):
    send({"jsonrpc": "2.0", "method": method, "params": params})


while True:
    request = reader.read()
    if request is None:
        sys.exit(1)
    method = request.get("method")
    if "id" not in request:
        if method == "exit":
            sys.exit(0)
        if method == "$/cancelRequest" and MODE == "wedged":
            notify("fake/cancelRequest", request["params"])
            answer(request["params"], {})
        if method == "$/cancelRequest" and MODE == "late-present":
            notify("dialog/presentationChanged", {"dialogId": "d-late", "isPresented": True})
            answer(request["params"], {"dialogId": "d-late"})
        continue
    if method == "fake/ask" and MODE == "asks":
        asked = {}
        for index, ask in enumerate(request["params"]["requests"]):
            asked[f"ask-{index}"] = None
            send({"jsonrpc": "2.0", "id": f"ask-{index}", **ask})
        while any(answered is None for answered in asked.values()):
            message = reader.read()
            if message is None:
                sys.exit(1)
            if message.get("id") in asked and "method" not in message:
                asked[message["id"]] = {key: message[key] for key in ("result", "error") if key in message}
        answer(request, list(asked.values()))
    elif method == "presentExporter" and MODE == "asks":
        answer(request, {"dialogId": "d1"})
    elif method == "initialize":
        answer(request, {"serverInfo": {"name": "wharf", "version": "fake"}, "protocolVersion": "0.1", "capabilities": {}})
    elif method == "presentImporter":
        if MODE == "late-present":
            continue
        if MODE == "early-events":
            notify("dialog/presentationChanged", {"dialogId": "d1", "isPresented": False})
            notify("dialog/completed", {"dialogId": "d1", "kind": "importer", "urls": ["file:///early.txt"]})
        answer(request, {"dialogId": "d1"})
    elif method == "shutdown":
        answer(request, None)
    elif MODE == "dies-mid-dialog":
        sys.stderr.write("fake wharf: dying on purpose\n")
        sys.stderr.flush()
        sys.exit(3)
    elif method == "ping" and MODE == "wedged":
        continue
    elif method == "cancel" and MODE == "late-present":
        notify("dialog/presentationChanged", {"dialogId": request["params"]["dialogId"], "isPresented": False})
        notify("dialog/cancelled", {"dialogId": request["params"]["dialogId"], "kind": "importer", "reason": "client"})
        answer(request, {"cancelled": True})
    elif method == "ping":
        if MODE == "slow":
            time.sleep(1.0)
        answer(request, {})
    else:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"no {method}"}})
