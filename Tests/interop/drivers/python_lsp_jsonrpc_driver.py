"""The scenario (../scenario.py) with python-lsp-jsonrpc: ``Endpoint`` over
``JsonRpcStreamReader``/``JsonRpcStreamWriter``, the library python-lsp-server is built on.

    python python_lsp_jsonrpc_driver.py WHARF      (the fixture as JSON in $INTEROP_FIXTURE)
"""
import json
import os
import subprocess
import sys
import threading

from pylsp_jsonrpc.endpoint import Endpoint
from pylsp_jsonrpc.exceptions import JsonRpcException
from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter

CLIENT = "python-lsp-jsonrpc"
TIMEOUT = 30

fixture = json.loads(os.environ["INTEROP_FIXTURE"])
report = {"notifications": []}
seen = threading.Condition()


def notification(method):
    def handle(params):
        with seen:
            report["notifications"].append([method, params])
            seen.notify_all()
    return handle


def wait_for(method, dialog_id):
    with seen:
        found = seen.wait_for(lambda: [p for m, p in report["notifications"]
                                       if m == method and p.get("dialogId") == dialog_id], TIMEOUT)
        assert found, f"no {method} for {dialog_id}"
        return found[0]


def snapshot(params):
    report["snapshot"] = params
    return {"text": f"written by {CLIENT}\n"}


dispatcher = {method: notification(method) for method in
              ("presenter/show", "presenter/hide", "dialog/presentationChanged", "dialog/completed",
               "dialog/cancelled", "dialog/progress")}
dispatcher["exporter/snapshot"] = snapshot

wharf = subprocess.Popen([sys.argv[1], "--state-dir", ":memory:", "--log-file", fixture["log"]],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
writer = JsonRpcStreamWriter(wharf.stdin)
# Ids from a counter of ours (Endpoint's id_generator), so the driver knows which id it cancels.
ids = iter(range(1, 1_000_000))
last_id = [0]


def next_id():
    last_id[0] = next(ids)
    return last_id[0]


endpoint = Endpoint(dispatcher, writer.write, id_generator=next_id)
reader = JsonRpcStreamReader(wharf.stdout)
threading.Thread(target=reader.listen, args=(endpoint.consume,), daemon=True).start()


def call(method, params=None):
    return endpoint.request(method, params).result(TIMEOUT)


report["initialize"] = call("initialize", {"processId": os.getpid(), "clientInfo": {"name": f"interop-{CLIENT}"},
                                           "capabilities": {"presentsDialogs": True}})
endpoint.notify("initialized", {})

importer = report["importer"] = call("presentImporter", {"allowedContentTypes": ["public.image"],
                                                         "options": {"defaultDirectory": fixture["photos"]}})
report["importerShown"] = wait_for("presenter/show", importer["dialogId"])
report["listing"] = call("dialog/list", {"dialogId": importer["dialogId"]})
pick = [entry["url"] for entry in report["listing"]["entries"] if entry["name"] == "a.png"]
report["choose"] = call("dialog/choose", {"dialogId": importer["dialogId"], "urls": pick})
wait_for("dialog/completed", importer["dialogId"])

exporter = report["exporter"] = call("presentExporter", {
    "documents": [{"filename": "lazy", "writableContentTypes": ["public.plain-text"]}],
    "options": {"defaultDirectory": fixture["out"]}})
report["exporterShown"] = wait_for("presenter/show", exporter["dialogId"])
report["save"] = call("dialog/choose", {"dialogId": exporter["dialogId"], "url": fixture["saveURL"]})
wait_for("dialog/completed", exporter["dialogId"])

cancelled = report["cancelDialog"] = call("presentImporter", {"allowedContentTypes": ["public.item"]})
wait_for("presenter/show", cancelled["dialogId"])
report["cancel"] = call("cancel", {"dialogId": cancelled["dialogId"]})
wait_for("dialog/cancelled", cancelled["dialogId"])
wait_for("presenter/hide", cancelled["dialogId"])

# Not future.cancel(): that sends $/cancelRequest, but the library then sets an exception on
# the cancelled future when wharf's answer (-32800, which JSON-RPC and the LSP require) arrives,
# and the InvalidStateError ends its reader thread (python-lsp-jsonrpc 1.1.2). So the driver
# sends $/cancelRequest itself, with the id it gave the request, and awaits the answer.
slow = report["slowDialog"] = call("presentImporter", {"allowedContentTypes": ["public.item"],
                                                       "options": {"defaultDirectory": fixture["big"]}})
wait_for("presenter/show", slow["dialogId"])
report["cancelRequest"] = []
for _ in range(3):
    future = endpoint.request("dialog/list", {"dialogId": slow["dialogId"], "limit": 1})
    endpoint.notify("$/cancelRequest", {"id": last_id[0]})
    try:
        report["cancelRequest"].append({"result": future.result(TIMEOUT)})
    except JsonRpcException as error:
        report["cancelRequest"].append({"code": error.code})
        break
report["dismiss"] = call("dialog/dismiss", {"dialogId": slow["dialogId"]})
wait_for("dialog/cancelled", slow["dialogId"])

report["shutdown"] = call("shutdown")
endpoint.notify("exit")
report["exitStatus"] = wharf.wait(TIMEOUT)
with open(fixture["report"], "w", encoding="utf-8") as file:
    json.dump(report, file)
