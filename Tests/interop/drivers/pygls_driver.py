"""The scenario (../scenario.py) with pygls's ``JsonRPCClient``, unmodified.

    python pygls_driver.py WHARF      (the fixture as JSON in $INTEROP_FIXTURE)

pygls sends ``"params": null`` for a request or notification without params (``shutdown``,
``exit``), writes a ``Content-Type`` header after ``Content-Length``, uses UUID strings as
request ids, and hands params and results over as namedtuples.
"""
import asyncio
import json
import os
import sys

from pygls.client import JsonRPCClient
from pygls.exceptions import JsonRpcException

CLIENT = "pygls"
TIMEOUT = 30

fixture = json.loads(os.environ["INTEROP_FIXTURE"])
report = {"notifications": []}


def plain(value):
    """pygls hands params and results over as namedtuples (an empty object is a namedtuple
    without fields): back to JSON values."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return {key: plain(item) for key, item in value.items()}


async def main():
    client = JsonRPCClient()
    changed = asyncio.Event()

    def record(method):
        def handle(params):
            report["notifications"].append([method, plain(params)])
            changed.set()
        return handle

    for method in ("presenter/show", "presenter/hide", "dialog/presentationChanged", "dialog/completed",
                   "dialog/cancelled", "dialog/progress"):
        client.feature(method)(record(method))

    @client.feature("exporter/snapshot")
    def snapshot(params):
        report["snapshot"] = plain(params)
        return {"text": f"written by {CLIENT}\n"}

    async def wait_for(method, dialog_id):
        async def found():
            while True:
                matching = [p for m, p in report["notifications"] if m == method and p.get("dialogId") == dialog_id]
                if matching:
                    return matching[0]
                changed.clear()
                await changed.wait()
        return await asyncio.wait_for(found(), TIMEOUT)

    async def call(method, params=None):
        return plain(await asyncio.wait_for(client.protocol.send_request_async(method, params), TIMEOUT))

    await client.start_io(sys.argv[1], "--state-dir", ":memory:", "--log-file", fixture["log"])

    report["initialize"] = await call("initialize", {
        "processId": os.getpid(), "clientInfo": {"name": f"interop-{CLIENT}"}, "capabilities": {"presentsDialogs": True}})
    client.protocol.notify("initialized", {})

    importer = report["importer"] = await call("presentImporter", {
        "allowedContentTypes": ["public.image"], "options": {"defaultDirectory": fixture["photos"]}})
    report["importerShown"] = await wait_for("presenter/show", importer["dialogId"])
    report["listing"] = await call("dialog/list", {"dialogId": importer["dialogId"]})
    pick = [entry["url"] for entry in report["listing"]["entries"] if entry["name"] == "a.png"]
    report["choose"] = await call("dialog/choose", {"dialogId": importer["dialogId"], "urls": pick})
    await wait_for("dialog/completed", importer["dialogId"])

    exporter = report["exporter"] = await call("presentExporter", {
        "documents": [{"filename": "lazy", "writableContentTypes": ["public.plain-text"]}],
        "options": {"defaultDirectory": fixture["out"]}})
    report["exporterShown"] = await wait_for("presenter/show", exporter["dialogId"])
    report["save"] = await call("dialog/choose", {"dialogId": exporter["dialogId"], "url": fixture["saveURL"]})
    await wait_for("dialog/completed", exporter["dialogId"])

    cancelled = report["cancelDialog"] = await call("presentImporter", {"allowedContentTypes": ["public.item"]})
    await wait_for("presenter/show", cancelled["dialogId"])
    report["cancel"] = await call("cancel", {"dialogId": cancelled["dialogId"]})
    await wait_for("dialog/cancelled", cancelled["dialogId"])
    await wait_for("presenter/hide", cancelled["dialogId"])

    # pygls has no cancel for a request it sent; its LanguageClient, like this, sends
    # $/cancelRequest with the request's id (send_request takes the id to use).
    slow = report["slowDialog"] = await call("presentImporter", {
        "allowedContentTypes": ["public.item"], "options": {"defaultDirectory": fixture["big"]}})
    await wait_for("presenter/show", slow["dialogId"])
    report["cancelRequest"] = []
    for attempt in range(3):
        request_id = f"slow-list-{attempt}"
        pending = client.protocol.send_request_async("dialog/list", {"dialogId": slow["dialogId"], "limit": 1},
                                                     msg_id=request_id)
        client.protocol.notify("$/cancelRequest", {"id": request_id})
        try:
            report["cancelRequest"].append({"result": plain(await asyncio.wait_for(pending, TIMEOUT))})
        except JsonRpcException as error:
            report["cancelRequest"].append({"code": error.code})
            break
    report["dismiss"] = await call("dialog/dismiss", {"dialogId": slow["dialogId"]})
    await wait_for("dialog/cancelled", slow["dialogId"])

    report["shutdown"] = await call("shutdown")
    client.protocol.notify("exit")
    report["exitStatus"] = await asyncio.wait_for(client._server.wait(), TIMEOUT)
    await client.stop()
    with open(fixture["report"], "w", encoding="utf-8") as file:
        json.dump(report, file)


asyncio.run(main())
