"""The scenario (../scenario.py) with jsonrpc-glib, the library GNOME Builder talks to language
servers with, through PyGObject (Debian's gir1.2-jsonrpc-1.0 and python3-gi; run it with
Debian's /usr/bin/python3, which has them).

    /usr/bin/python3 jsonrpc_glib_driver.py WHARF      (the fixture as JSON in $INTEROP_FIXTURE)

Params go out as GVariants (``a{sv}`` dictionaries), which jsonrpc-glib turns into JSON; a call
without params sends ``"params": null``. Replies and notifications come back as GVariants, and
``unpack()`` makes them Python values again. The scenario is a generator: each ``yield`` hands
the main loop an operation and gets its outcome back, so everything runs on one GLib main loop.
"""
import json
import os
import re
import sys

import gi

gi.require_version("Jsonrpc", "1.0")
from gi.repository import Gio, GLib, Jsonrpc  # noqa: E402

CLIENT = "jsonrpc-glib"
TIMEOUT_SECONDS = 30

fixture = json.loads(os.environ["INTEROP_FIXTURE"])
report = {"notifications": []}
loop = GLib.MainLoop()
failure = []


def variant(value):
    """A JSON value as the GVariant jsonrpc-glib expects (objects are a{sv})."""
    if isinstance(value, bool):
        return GLib.Variant("b", value)
    if isinstance(value, int):
        return GLib.Variant("x", value)
    if isinstance(value, str):
        return GLib.Variant("s", value)
    if isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return GLib.Variant("as", value)
        return GLib.Variant("av", [variant(item) for item in value])
    if isinstance(value, dict):
        return GLib.Variant("a{sv}", {key: variant(item) for key, item in value.items()})
    raise TypeError(value)


def unpack(value):
    return None if value is None else value.unpack()


process = Gio.Subprocess.new([sys.argv[1], "--state-dir", ":memory:", "--log-file", fixture["log"]],
                             Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE)
stream = Gio.SimpleIOStream.new(process.get_stdout_pipe(), process.get_stdin_pipe())
client = Jsonrpc.Client.new(stream)
waiting = []  # (method, dialogId, resume)


def on_notification(_client, method, params):
    report["notifications"].append([method, unpack(params)])
    for entry in list(waiting):
        wanted, dialog_id, resume = entry
        if wanted == method and unpack(params).get("dialogId") == dialog_id:
            waiting.remove(entry)
            resume(unpack(params))


def on_handle_call(_client, method, request_id, params):
    if method != "exporter/snapshot":
        return False  # jsonrpc-glib answers -32601 itself
    report["snapshot"] = unpack(params)
    client.reply(request_id, variant({"text": f"written by {CLIENT}\n"}), None)
    return True


client.connect("notification", on_notification)
client.connect("handle-call", on_handle_call)
client.start_listening()


# Operations a scenario step yields: each takes `resume(outcome)`.

def call(method, params=None, cancellable=None):
    def start(resume):
        def done(source, result):
            try:
                ok, reply = source.call_finish(result)
                resume(unpack(reply))
            except GLib.Error as error:
                resume(error)
        client.call_async(method, None if params is None else variant(params), cancellable, done)
    return start


def call_then_cancel(method, params, request_id):
    """Calls, then sends $/cancelRequest for the call at once."""
    def start(resume):
        call(method, params)(resume)
        client.send_notification("$/cancelRequest", variant({"id": request_id}), None)
    return start


def error_object(error):
    """jsonrpc-glib 3.42 fails a call answered with an error with a GError of code 0 whose
    message is the error object printed as a GVariant: the code is read back from there."""
    found = re.search(r"'code': <(?:int64 )?(-?[0-9]+)>", error.message)
    return {"code": int(found.group(1)) if found else error.code, "message": error.message}


def wait_for(method, dialog_id):
    def start(resume):
        for name, params in report["notifications"]:
            if name == method and params.get("dialogId") == dialog_id:
                resume(params)
                return
        waiting.append((method, dialog_id, resume))
    return start


def scenario():
    report["initialize"] = yield call("initialize", {
        "processId": os.getpid(), "clientInfo": {"name": f"interop-{CLIENT}"}, "capabilities": {"presentsDialogs": True}})
    client.send_notification("initialized", variant({}), None)

    importer = report["importer"] = yield call("presentImporter", {
        "allowedContentTypes": ["public.image"], "options": {"defaultDirectory": fixture["photos"]}})
    report["importerShown"] = yield wait_for("presenter/show", importer["dialogId"])
    report["listing"] = yield call("dialog/list", {"dialogId": importer["dialogId"]})
    pick = [entry["url"] for entry in report["listing"]["entries"] if entry["name"] == "a.png"]
    report["choose"] = yield call("dialog/choose", {"dialogId": importer["dialogId"], "urls": pick})
    yield wait_for("dialog/completed", importer["dialogId"])

    exporter = report["exporter"] = yield call("presentExporter", {
        "documents": [{"filename": "lazy", "writableContentTypes": ["public.plain-text"]}],
        "options": {"defaultDirectory": fixture["out"]}})
    report["exporterShown"] = yield wait_for("presenter/show", exporter["dialogId"])
    report["save"] = yield call("dialog/choose", {"dialogId": exporter["dialogId"], "url": fixture["saveURL"]})
    yield wait_for("dialog/completed", exporter["dialogId"])

    cancelled = report["cancelDialog"] = yield call("presentImporter", {"allowedContentTypes": ["public.item"]})
    yield wait_for("presenter/show", cancelled["dialogId"])
    report["cancel"] = yield call("cancel", {"dialogId": cancelled["dialogId"]})
    yield wait_for("dialog/cancelled", cancelled["dialogId"])
    yield wait_for("presenter/hide", cancelled["dialogId"])

    # jsonrpc-glib gives a call no id the caller sees and sends no $/cancelRequest itself (a
    # GCancellable only abandons the call locally); Builder's LSP client sends $/cancelRequest
    # on its own. The ids it uses are 1, 2, 3… in call order, so the next call's id is known.
    slow = report["slowDialog"] = yield call("presentImporter", {
        "allowedContentTypes": ["public.item"], "options": {"defaultDirectory": fixture["big"]}})
    yield wait_for("presenter/show", slow["dialogId"])
    report["cancelRequest"] = []
    for request_id in (10, 11, 12):  # the 10th, 11th and 12th calls
        answer = yield call_then_cancel("dialog/list", {"dialogId": slow["dialogId"], "limit": 1}, request_id)
        if isinstance(answer, GLib.Error):
            report["cancelRequest"].append(error_object(answer))
            break
        report["cancelRequest"].append({"result": answer})
    report["dismiss"] = yield call("dialog/dismiss", {"dialogId": slow["dialogId"]})
    yield wait_for("dialog/cancelled", slow["dialogId"])

    report["shutdown"] = yield call("shutdown")
    client.send_notification("exit", None, None)
    report["exitStatus"] = yield (lambda resume: process.wait_async(None, lambda source, result: (
        source.wait_finish(result), resume(source.get_exit_status()))))


steps = scenario()


def advance(outcome):
    try:
        operation = steps.send(outcome)
    except StopIteration:
        loop.quit()
        return
    except BaseException as error:  # noqa: B902 — any failure ends the run, reported
        failure.append(error)
        loop.quit()
        return
    operation(lambda value: GLib.idle_add(lambda: advance(value) and False))


def give_up():
    failure.append(TimeoutError(f"the scenario did not finish in {TIMEOUT_SECONDS} s; it got to: {sorted(report)}"))
    loop.quit()


GLib.timeout_add_seconds(TIMEOUT_SECONDS, give_up)
GLib.idle_add(lambda: advance(None) and False)
loop.run()
if failure:
    raise failure[0]
with open(fixture["report"], "w", encoding="utf-8") as file:
    json.dump(report, file)
