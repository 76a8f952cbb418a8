"""The protocol core both clients share, free of I/O: bytes in, bytes and events out.

:class:`ProtocolCore` frames and numbers requests and reads what the server sends into
:class:`Response`, :class:`Notification` and :class:`ServerRequest` values. :class:`Router`
keeps what a session knows about its dialogs: each dialog's events in the server's order
(:class:`DialogRecord`), the events that came before the answer naming their dialog, and the
dialogs this client was asked to draw. :func:`outcome_urls` turns a dialog's final event into
its URLs or the exception to raise. A request that timed out is forgotten with
:meth:`ProtocolCore.expire`; should a present's answer still come, :attr:`Response.late_dialog`
names the dialog nobody waits for, to cancel and :meth:`Router.abandon`. :class:`OutputTail`
keeps the server's last words on standard error.

The synchronous client (:mod:`wharf_client.client`, a reader thread) and the asyncio one
(:mod:`wharf_client.aio`, asyncio streams, no threads) are thin drivers around these: they
only move bytes and wake whoever waits, so the two cannot disagree about the protocol.
"""
from __future__ import annotations

import collections
import itertools
import json
import logging
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Dict, Iterator, List, Optional, Set, Union

from .errors import ConnectionLost, DialogCancelled, DialogFailed, RequestError
from .framing import LSP, FrameDecoder, FramingError, encode
from .types import ContentTypeChoice, DialogFilters

#: A JSON value as :func:`json.loads` gives it.
JSON = Any

#: Produces a lazy document's contents for a content type: ``str``, ``bytes`` or
#: ``{"path": …}`` (the asyncio client also accepts a coroutine function).
SnapshotProvider = Callable[[str], Any]

#: The requests whose answer opens a dialog.
PRESENTS = ("presentImporter", "presentExporter")


@dataclass(frozen=True)
class Response:
    """The answer to one of our requests: ``error`` set, or ``result``. ``late``: the answer
    to a present that timed out (:meth:`ProtocolCore.expire`), which nobody waits for."""
    id: int
    method: str
    result: JSON = None
    error: Optional[RequestError] = None
    late: bool = False

    @property
    def late_dialog(self) -> Optional[str]:
        """The dialog a late present's answer opened (it crossed our ``$/cancelRequest``):
        nobody waits for it, so it is to be cancelled."""
        if not self.late or not isinstance(self.result, dict) or not isinstance(self.result.get("dialogId"), str):
            return None
        return str(self.result["dialogId"])


@dataclass(frozen=True)
class Notification:
    method: str
    params: JSON


@dataclass(frozen=True)
class ServerRequest:
    """A request from the server (``exporter/snapshot``), to be answered with :meth:`ProtocolCore.respond`."""
    id: JSON
    method: str
    params: JSON


Incoming = Union[Response, Notification, ServerRequest]


def snapshot_params(request: ServerRequest) -> Dict[str, JSON]:
    """The params of a server request this client serves (``exporter/snapshot``), or raises
    the RequestError to answer with: ``-32601`` (method not found) for another method,
    ``-32602`` (invalid params) for params that are not an object. The method is one this
    client knows, so params of the wrong shape are not "method not found", whatever they are."""
    if request.method != "exporter/snapshot":
        raise RequestError(request.method, -32601, f"this client does not handle {request.method}")
    if not isinstance(request.params, dict):
        raise RequestError(request.method, -32602, f"{request.method} params must be an object "
                                                   f"(dialogId, documentIndex, contentType), not "
                                                   f"{json.dumps(request.params)[:100]}")
    return request.params


class ProtocolCore:
    """JSON-RPC 2.0 framing and bookkeeping, without I/O."""

    def __init__(self, framing: str = LSP) -> None:
        self.framing = framing
        self._decoder = FrameDecoder(framing)
        self._ids = itertools.count(1)
        self._pending: Dict[int, str] = {}
        self._expired: Dict[int, str] = {}  # presents that timed out, whose answer may still come
        #: Why the connection ended, once it has.
        self.closed: Optional[ConnectionLost] = None

    def request(self, method: str, params: JSON = None) -> "tuple[int, bytes]":
        """A new request's id and frame; params None are left out."""
        if self.closed is not None:
            raise ConnectionLost(f"{method} cannot be sent: {self.closed}")
        request_id = next(self._ids)
        self._pending[request_id] = method
        message: Dict[str, JSON] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        return request_id, encode(message, self.framing)

    def forget(self, request_id: int) -> None:
        """Stops expecting an answer (the request could not be sent)."""
        self._pending.pop(request_id, None)

    def expire(self, request_id: int) -> bool:
        """Gives up on a request that got no answer in time: its answer is not delivered (a
        present's comes back ``late``, for its dialog to be cancelled). True if it was still
        pending: then tell the server, ``$/cancelRequest`` ``{"id": request_id}``. False if it was
        answered meanwhile or the connection ended: its future is settled, or about to be."""
        method = self._pending.pop(request_id, None)
        if method is None:
            return False
        if method in PRESENTS:
            self._expired[request_id] = method
        return True

    def notify(self, method: str, params: JSON = None) -> bytes:
        if self.closed is not None:
            raise ConnectionLost(f"{method} cannot be sent: {self.closed}")
        message: Dict[str, JSON] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return encode(message, self.framing)

    def respond(self, request_id: JSON, result: JSON = None, error: Optional[Dict[str, JSON]] = None) -> bytes:
        message: Dict[str, JSON] = {"jsonrpc": "2.0", "id": request_id}
        if error is not None:
            message["error"] = error
        else:
            message["result"] = result
        return encode(message, self.framing)

    def receive(self, data: bytes) -> List[Incoming]:
        """What ``data`` completes, in order. Raises FramingError or ValueError when the server
        writes something unreadable (the connection is then unusable)."""
        incoming: List[Incoming] = []
        for body in self._decoder.push(data):
            message = json.loads(body)
            for item in message if isinstance(message, list) else [message]:
                parsed = self._parse(item)
                if parsed is not None:
                    incoming.append(parsed)
        return incoming

    def end_of_input(self) -> None:
        if self._decoder.partial:
            raise FramingError("the server's output ended inside a message")

    def close(self, reason: ConnectionLost) -> List[str]:
        """Ends the connection; the methods of the requests that will never be answered."""
        if self.closed is None:
            self.closed = reason
        pending, self._pending = self._pending, {}
        self._expired.clear()
        return list(pending.values())

    def _parse(self, message: JSON) -> Optional[Incoming]:
        if not isinstance(message, dict):
            return None
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                return ServerRequest(message["id"], method, message.get("params"))
            return Notification(method, message.get("params"))
        request_id = message.get("id")
        if not isinstance(request_id, int) or (request_id not in self._pending and request_id not in self._expired):
            return None  # not ours, answered already, or timed out and not a present
        late = request_id in self._expired
        sent = self._expired.pop(request_id) if late else self._pending.pop(request_id)
        error = message.get("error")
        if isinstance(error, dict):
            return Response(request_id, sent, error=RequestError(sent, int(error.get("code", 0)),
                                                                  str(error.get("message", "")), error.get("data")),
                            late=late)
        return Response(request_id, sent, result=message.get("result"), late=late)


@dataclass(frozen=True)
class DialogEvent:
    """One thing the server said about a dialog, in the order it said it.

    ``kind`` is the notification's name without ``dialog/`` (``presentationChanged``,
    ``progress``, ``completed``, ``cancelled``) or ``disconnected`` when the server went away.
    ``params`` holds the notification's params as sent.
    """
    kind: str
    params: Dict[str, JSON] = field(default_factory=dict)

    @property
    def is_final(self) -> bool:
        return self.kind in ("completed", "cancelled", "disconnected")


def outcome_urls(dialog_id: str, event: DialogEvent) -> List[str]:
    """What ``result()`` returns or raises for a final event."""
    if event.kind == "completed":
        error = event.params.get("error")
        if isinstance(error, dict):
            raise DialogFailed(dialog_id, int(error.get("code", 0)), str(error.get("message", "")), error.get("url"))
        return [str(url) for url in event.params.get("urls", [])]
    if event.kind == "cancelled":
        raise DialogCancelled(dialog_id, str(event.params.get("reason", "unknown")))
    raise ConnectionLost(f"dialog {dialog_id} never ended: {event.params.get('message', 'the server went away')}")


#: How many events before its final one a dialog keeps for ``events()`` to iterate (and the
#: router for a dialog not registered yet): older ones are dropped, so an app that never reads
#: them does not keep a long export's ``progress`` for ever. The final event is always kept.
EVENTS_KEPT = 64


def keep(events: List[DialogEvent], event: DialogEvent) -> int:
    """Appends ``event``, dropping the oldest event if more than EVENTS_KEPT come before a final
    one; returns how many were dropped (0 or 1). A final event is never dropped: it comes last."""
    events.append(event)
    if not event.is_final and len(events) > EVENTS_KEPT:
        del events[0]
        return 1
    return 0


class DialogRecord:
    """What is known of one dialog: its last EVENTS_KEPT events, then its final one; nothing
    after that. ``skipped`` counts the events dropped from the front, so ``received`` is how many
    have come in all, and an iterator that fell behind resumes at the oldest kept."""

    def __init__(self, dialog_id: str, kind: str, snapshots: List[Optional[SnapshotProvider]]) -> None:
        self.id = dialog_id
        self.kind = kind
        self.snapshots = snapshots
        self.events: List[DialogEvent] = []
        self.skipped = 0
        #: Called after each event is added (the drivers wake their waiters here).
        self.on_event: Optional[Callable[[DialogEvent], None]] = None

    @property
    def received(self) -> int:
        return self.skipped + len(self.events)

    def event_from(self, index: int) -> "tuple[int, DialogEvent]":
        """The event numbered ``index`` (counting every event received), or the oldest kept if
        that one was dropped, with its number; there must be one (``index < received``)."""
        index = max(index, self.skipped)
        return index, self.events[index - self.skipped]

    def push(self, event: DialogEvent) -> bool:
        if self.done:
            return False  # exactly once: nothing after the end (a late disconnect, say)
        self.skipped += keep(self.events, event)
        if event.is_final:
            # Nothing asks for a snapshot once the dialog has ended: let go of the functions
            # (and all they capture), even while the app keeps the Dialog itself.
            self.snapshots = []
        if self.on_event is not None:
            self.on_event(event)
        return True

    @property
    def done(self) -> bool:
        return bool(self.events) and self.events[-1].is_final

    @property
    def final(self) -> Optional[DialogEvent]:
        return self.events[-1] if self.done else None

    @property
    def content_types(self) -> Optional[List[str]]:
        final = self.final
        if final is None or final.kind != "completed":
            return None
        types = final.params.get("contentTypes")
        return [str(t) for t in types] if isinstance(types, list) else None

    def snapshot_provider(self, index: JSON) -> Optional[SnapshotProvider]:
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(self.snapshots):
            return self.snapshots[index]
        return None


@dataclass(frozen=True)
class Routed:
    """What a notification meant: ``event`` for a dialog, or ``show``/``hide`` for the presenter."""
    what: str
    dialog_id: str
    event: Optional[DialogEvent] = None
    params: Dict[str, JSON] = field(default_factory=dict)


class Router:
    """Routes notifications to dialogs, keeping those that name a dialog not registered yet
    (a server may announce before the answer naming the dialog is read).

    ``dialogs`` holds the dialogs that have not ended. Once its final event is pushed (and so
    handed to whoever waits on it) a dialog is dropped from it: an editor opens dialogs for
    as long as it runs, and each would otherwise be kept, with its events and its snapshot
    functions, for ever. Whoever holds the record (a ``Dialog``) still reads its outcome; a
    lookup by id finds nothing, as for a dialog never seen."""

    #: How many ended dialogs' ids are remembered, so that a stray notification naming one is
    #: dropped rather than kept as an early event for a dialog that will never register. Ids
    #: are not reused, and wharf sends nothing after a dialog's final event: this is a guard,
    #: and bounded.
    ENDED_IDS = 1024

    def __init__(self) -> None:
        self.dialogs: Dict[str, DialogRecord] = {}
        self._early: Dict[str, List[DialogEvent]] = {}
        self._abandoned: Set[str] = set()
        self._ended: "collections.OrderedDict[str, None]" = collections.OrderedDict()

    def register(self, dialog_id: str, kind: str, snapshots: List[Optional[SnapshotProvider]]) -> DialogRecord:
        record = DialogRecord(dialog_id, kind, snapshots)
        self.dialogs[dialog_id] = record
        for event in self._early.pop(dialog_id, []):
            self._push(record, event)
        return record

    def _push(self, record: DialogRecord, event: DialogEvent) -> None:
        if record.push(event) and event.is_final:
            self._forget(record.id)

    def _forget(self, dialog_id: str) -> None:
        self.dialogs.pop(dialog_id, None)
        self._ended[dialog_id] = None
        if len(self._ended) > self.ENDED_IDS:
            self._ended.popitem(last=False)

    def route(self, method: str, params: JSON) -> Optional[Routed]:
        if not isinstance(params, dict) or not isinstance(params.get("dialogId"), str):
            return None
        dialog_id: str = params["dialogId"]
        if method.startswith("dialog/"):
            event = DialogEvent(method[len("dialog/"):], params)
            record = self.dialogs.get(dialog_id)
            if dialog_id in self._abandoned:
                if event.is_final:
                    self._abandoned.discard(dialog_id)
            elif record is not None:
                self._push(record, event)
            elif dialog_id not in self._ended:  # else: after its end, nothing to keep it for
                keep(self._early.setdefault(dialog_id, []), event)
            return Routed("event", dialog_id, event, params)
        if method == "presenter/show":
            return Routed("show", dialog_id, params=params)
        if method == "presenter/hide":
            return Routed("hide", dialog_id, params=params)
        return None

    def abandon(self, dialog_id: str) -> None:
        """Forgets a dialog nobody waits for (a late present's, being cancelled): its events,
        kept or still to come, are dropped up to its final one."""
        if not any(event.is_final for event in self._early.pop(dialog_id, [])):
            self._abandoned.add(dialog_id)

    def disconnect(self, message: str) -> None:
        """Ends every dialog that has not ended with a ``disconnected`` event."""
        for record in list(self.dialogs.values()):
            self._push(record, DialogEvent("disconnected", {"dialogId": record.id, "message": message}))
        # Nothing more will come: early events would never find their dialog.
        self._early.clear()
        self._abandoned.clear()

    def __iter__(self) -> Iterator[DialogRecord]:
        return iter(list(self.dialogs.values()))


class PresentationFields:
    """The fields of ``presenter/show``, shared by :class:`wharf_client.Presentation` and
    :class:`wharf_client.aio.AsyncPresentation`."""

    def __init__(self, params: Dict[str, JSON]) -> None:
        self.params = params
        self.dialog_id: str = params["dialogId"]
        self.kind: str = params["kind"]
        self.title: Optional[str] = params.get("title")
        self.message: Optional[str] = params.get("message")
        self.confirmation_label: Optional[str] = params.get("confirmationLabel")
        self.allowed_content_types: List[str] = list(params.get("allowedContentTypes", []))
        self.allows_multiple_selection: bool = bool(params.get("allowsMultipleSelection", False))
        self.filters: Optional[DialogFilters] = (DialogFilters.from_json(params["filters"])
                                                 if isinstance(params.get("filters"), dict) else None)
        self.directory: str = params.get("directory", "")
        self.browser_options: List[str] = list(params.get("browserOptions", []))
        #: Exporters: the suggested name (with the preferred extension) …
        self.filename: Optional[str] = params.get("filename")
        #: … one name per document …
        self.filenames: List[str] = list(params.get("filenames", []))
        #: … what the human may choose from (the first is the default) …
        self.content_types: List[str] = list(params.get("contentTypes", []))
        self.filename_label: Optional[str] = params.get("filenameLabel")
        #: … one ``ContentTypeChoice`` for each of ``content_types``, in order (its description
        #: and the names the documents take when it is picked; [] from an older server) …
        self.content_type_choices: List[ContentTypeChoice] = [
            ContentTypeChoice.from_json(choice) for choice in params.get("contentTypeChoices", [])]
        #: … and how many documents are saved (0 for an importer).
        self.document_count: int = int(params.get("documentCount", 0))
        #: Movers: the files to be moved, in the order the app gave them (``file:`` URLs); []
        #: for the others.
        self.mover_urls: List[str] = list((params.get("mover") or {}).get("urls", []))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.dialog_id} {self.kind} {self.title!r}>"


LOG = logging.getLogger("wharf_client")


def call_listener(listener: Callable[..., Any], *args: Any) -> None:
    """Calls a notification or traffic listener. What it raises is logged and goes no further:
    the listener runs where the client reads (or writes), and a listener's bug must not end the
    session, nor leave a request half sent."""
    try:
        listener(*args)
    except Exception:
        LOG.exception("a wharf_client listener raised; the session goes on (%r)", listener)


def release_failed(error: BaseException, failure: Exception, access_id: str) -> None:
    """An ``access()`` block raised ``error``, and releasing its lease then failed too.

    ``error`` is what goes on: it is what the caller's own code did, and the release failure
    (wharf wedged, the lease already gone) is only a consequence to report. Raising the release
    failure instead would hide the caller's exception behind ours (as ``__context__``, if at
    all). So it is logged (logger ``wharf_client``, with its traceback) and, from Python 3.11,
    noted on ``error`` so that its traceback tells too."""
    LOG.warning("releasing access %s failed after the access block raised %s", access_id, type(error).__name__,
                exc_info=failure)
    if sys.version_info >= (3, 11):
        error.add_note(f"wharf_client: releasing access {access_id} failed too: {failure}")


def failure_message(error: BaseException) -> str:
    """What ``dialog/fail`` says when a presenter handler raised."""
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


NO_HANDLER_MESSAGE = ("this client said presentsDialogs but registered no on_present handler, "
                      "so nothing can draw the dialog")


class OutputTail:
    """The last lines a server wrote to standard error, in bounded memory: at most ``lines``
    lines, each cut to its last ``line_bytes`` bytes, and the line being written.

    The clients feed it what they read in chunks, not line by line: a line may be of any
    length, and reading one whole would hold it all in memory (or, with asyncio's
    ``readline()``, fail past its limit and stop the reading, and a server whose standard error
    is not read blocks when it writes there)."""

    def __init__(self, lines: int = 40, line_bytes: int = 4096) -> None:
        self._lines: Deque[bytes] = collections.deque(maxlen=lines)
        self._line_bytes = line_bytes
        self._partial = b""

    def feed(self, data: bytes) -> None:
        *complete, partial = (self._partial + data).split(b"\n")
        for line in complete:
            self._lines.append(line[-self._line_bytes:] + b"\n")
        self._partial = partial[-self._line_bytes:]

    @property
    def text(self) -> str:
        return b"".join([*self._lines, self._partial]).decode("utf-8", "replace")
