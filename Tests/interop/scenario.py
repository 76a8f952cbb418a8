"""The one scenario every ecosystem's client plays against the real wharf, and its check.

Each driver (``drivers/``) is written with its ecosystem's own JSON-RPC library, unmodified,
and does exactly this, writing what it saw to a JSON report:

1. spawns ``wharf --state-dir :memory: --log-file LOG`` and sends ``initialize`` as a frontend
   presenter (``capabilities.presentsDialogs: true``), then ``initialized``;
2. ``presentImporter`` for ``public.image`` in ``photos/``; on ``presenter/show`` it lists the
   folder with ``dialog/list`` and picks ``a.png`` with ``dialog/choose``; the dialog ends with
   ``dialog/presentationChanged`` and ``dialog/completed``;
3. ``presentExporter`` of one lazy document; on ``presenter/show`` it chooses ``out/lazy.txt``;
   wharf asks for the bytes with the ``exporter/snapshot`` request, which the client answers
   with ``{"text": "written by CLIENT\\n"}``; the dialog completes;
4. ``presentImporter``, then the app's ``cancel``: ``presenter/hide`` and ``dialog/cancelled``
   (reason ``client``);
5. ``presentImporter`` in ``big/`` (20,000 files, so listing takes a while), then
   ``dialog/list`` followed at once by ``$/cancelRequest`` for it: answered ``-32800``
   (up to three tries, as the race is real); then ``dialog/dismiss`` (reason ``user``);
6. ``shutdown`` the way the library sends a request without params (some send
   ``"params": null``), then ``exit``; wharf exits with status 0.

The report (JSON object) holds: ``initialize``, ``importer``, ``importerShown``, ``listing``,
``choose``, ``exporter``, ``exporterShown``, ``save``, ``snapshot`` (the request's params),
``cancelled``/``cancelDialog``, ``cancel`` (the result), ``cancelRequest`` (a list, one per try,
of ``{"code": …}`` or ``{"result": …}``), ``dismiss``, ``shutdown``, ``exitStatus`` and
``notifications`` (every notification, in order, as ``[method, params]``).
"""
from __future__ import annotations

import base64
import json
import os
import pathlib
from typing import Any, Dict, List

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
BIG_DIRECTORY_FILES = 20_000


def url(path: pathlib.Path) -> str:
    return path.as_uri()


def make_big_directory(root: pathlib.Path) -> pathlib.Path:
    """A folder whose listing takes long enough (about a quarter second) for a cancellation to
    arrive while it runs."""
    big = root / "big"
    big.mkdir()
    for index in range(BIG_DIRECTORY_FILES):
        os.close(os.open(big / f"f{index}", os.O_WRONLY | os.O_CREAT, 0o644))
    return big


def make_fixture(root: pathlib.Path, big: pathlib.Path) -> Dict[str, str]:
    """The folders of one run, as the driver gets them (``$INTEROP_FIXTURE``, JSON)."""
    photos = root / "photos"
    photos.mkdir()
    (photos / "a.png").write_bytes(PNG)
    (photos / "b.png").write_bytes(PNG)
    (photos / "notes.txt").write_text("not a photo\n")
    (root / "out").mkdir()
    return {
        "photos": str(photos), "photosURL": url(photos),
        "out": str(root / "out"), "outURL": url(root / "out"),
        "saveURL": url(root / "out" / "lazy.txt"),
        "big": str(big),
        "log": str(root / "wharf.log"),
        "report": str(root / "report.json"),
    }


def notifications(report: Dict[str, Any], method: str, dialog_id: str) -> List[Dict[str, Any]]:
    return [params for name, params in report["notifications"]
            if name == method and isinstance(params, dict) and params.get("dialogId") == dialog_id]


def methods_for(report: Dict[str, Any], dialog_id: str) -> List[str]:
    return [name for name, params in report["notifications"]
            if isinstance(params, dict) and params.get("dialogId") == dialog_id]


def check(report: Dict[str, Any], fixture: Dict[str, str], client: str, version: str,
          empty_object_reads_as_null: bool = False) -> None:
    """Every step happened as the protocol says; each assertion names the step.

    ``empty_object_reads_as_null``: the library reads ``{}`` and ``null`` alike (jsonrpc.el's
    plists), so a ``{}`` result reaches the report as null.
    """
    empty: Any = None if empty_object_reads_as_null else {}
    info = report["initialize"]["serverInfo"]
    assert info == {"name": "wharf", "version": version}, f"initialize: {report['initialize']}"
    assert "frontend" in report["initialize"]["capabilities"]["presenters"]

    # The importer: shown, listed, chosen, completed — in that order.
    importer = report["importer"]["dialogId"]
    shown = report["importerShown"]
    assert shown["dialogId"] == importer and shown["kind"] == "importer", f"presenter/show: {shown}"
    assert shown["allowedContentTypes"] == ["public.image"]
    assert shown["directory"].rstrip("/") == fixture["photosURL"]
    enabled = {entry["name"]: entry["enabled"] for entry in report["listing"]["entries"]}
    assert enabled == {"a.png": True, "b.png": True, "notes.txt": False}, f"dialog/list: {report['listing']}"
    assert report["choose"] == empty, f"dialog/choose: {report['choose']}"
    picked = fixture["photosURL"] + "/a.png"
    assert methods_for(report, importer) == ["presenter/show", "dialog/presentationChanged", "dialog/completed"], \
        f"the importer's notifications: {methods_for(report, importer)}"
    [completed] = notifications(report, "dialog/completed", importer)
    assert completed["urls"] == [picked] and completed["kind"] == "importer", f"dialog/completed: {completed}"
    [changed] = notifications(report, "dialog/presentationChanged", importer)
    assert changed["isPresented"] is False

    # The lazy exporter: the client answered exporter/snapshot, and wharf wrote its answer.
    exporter = report["exporter"]["dialogId"]
    assert report["exporterShown"]["kind"] == "exporter" and report["exporterShown"]["filename"] == "lazy.txt"
    assert report["save"] == empty
    assert report["snapshot"] == {"dialogId": exporter, "documentIndex": 0, "contentType": "public.plain-text"}, \
        f"exporter/snapshot: {report['snapshot']}"
    [written] = notifications(report, "dialog/completed", exporter)
    assert written["urls"] == [fixture["saveURL"]] and written["contentTypes"] == ["public.plain-text"], \
        f"the export's dialog/completed: {written}"
    saved = pathlib.Path(fixture["out"]) / "lazy.txt"
    assert saved.read_text() == f"written by {client}\n"

    # cancel: the app ends a dialog; the presenter is told to hide it.
    cancelled = report["cancelDialog"]["dialogId"]
    assert report["cancel"] == {"cancelled": True}, f"cancel: {report['cancel']}"
    assert notifications(report, "presenter/hide", cancelled) == [{"dialogId": cancelled}]
    [ending] = notifications(report, "dialog/cancelled", cancelled)
    assert ending["reason"] == "client", f"dialog/cancelled: {ending}"

    # $/cancelRequest answers a dialog/list still running with -32800.
    tries = report["cancelRequest"]
    assert tries and tries[-1].get("code") == -32800, f"$/cancelRequest: {tries}"
    assert all("code" in attempt or "result" in attempt for attempt in tries)
    slow = report["slowDialog"]["dialogId"]
    assert report["dismiss"] == empty
    [dismissed] = notifications(report, "dialog/cancelled", slow)
    assert dismissed["reason"] == "user"

    # shutdown answers null; exit ends wharf with 0.
    assert report["shutdown"] is None, f"shutdown: {report['shutdown']}"
    assert report["exitStatus"] == 0, f"wharf exited with {report['exitStatus']}"


def load_report(fixture: Dict[str, str]) -> Dict[str, Any]:
    with open(fixture["report"], encoding="utf-8") as file:
        report: Dict[str, Any] = json.load(file)
    return report
