"""The synchronous client: a thin driver around :mod:`wharf_client.core`.

One reader thread reads the server's output and feeds the core; answers settle futures,
dialog events wake the dialog's waiters. One writer thread writes what is sent, in order, so
that no caller blocks on the pipe itself; what waits for it is bounded (SEND_BUFFER_BYTES), and a
caller waits for room within its own timeout. User code (snapshot providers, presenter handlers)
runs on threads of its own, so a slow callback never stalls the reader. Nothing polls.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import os
import queue
import shutil
import subprocess
import threading
import time
import weakref
from collections import deque
from concurrent.futures import Future
from typing import IO, Any, Callable, Deque, Dict, Iterator, List, Optional, Sequence, Tuple, TypeVar, Union, cast

from . import calls
from .calls import Call
from .core import (LOG, NO_HANDLER_MESSAGE, DialogEvent, DialogRecord, Notification, OutputTail, PresentationFields,
                   ProtocolCore, Response, Router, ServerRequest, call_listener, failure_message, outcome_urls,
                   release_failed, snapshot_params)
from .errors import ConnectionLost, RequestError, WharfError, WharfTimeout
from .framing import LSP, FramingError
from .paths import url_to_path
from .types import (AccessList, DialogFilters, DialogOptions, DirectoryEntry, DirectoryListing, ExportDocument,
                    Identification, InitializeResult, Lease, TypeDescription)

T = TypeVar("T")
JSON = Any

#: How long a request waits for its answer by default before raising WharfTimeout: a guard
#: against a wedged server. Dialogs wait on humans: ``Dialog.result()`` takes its own timeout.
DEFAULT_TIMEOUT = 60.0

#: What the client holds for a wharf that has not read it yet: once the frames waiting for the
#: writer thread, and the one it is writing, come to this many bytes, a sender waits for room
#: (see _Output). So the client holds at most this and one message, however much is sent.
SEND_BUFFER_BYTES = 64 * 1024

#: How many notifications may wait for the notification listeners, which run on a thread of
#: their own (see on_notification): past that, while a listener is stuck, what comes is not
#: handed to them (a warning is logged) rather than kept without bound. Dialogs and answers
#: never wait for listeners, nor lose anything to them.
LISTENER_BACKLOG = 1024

#: Where an installed wharf is looked for after ``$WHARF`` and ``PATH``.
INSTALLED_LOCATIONS = ("/usr/local/bin/wharf", "/usr/bin/wharf")

PresentHandler = Callable[["Presentation"], None]
TrafficListener = Callable[[str, Any], None]


def find_wharf(path: Optional[str] = None) -> str:
    """The wharf binary: ``path`` if given, else ``$WHARF``, else ``wharf`` on ``PATH``, else
    an installed ``/usr/local/bin/wharf`` or ``/usr/bin/wharf``."""
    candidate = path or os.environ.get("WHARF") or shutil.which("wharf")
    if candidate:
        return candidate
    for location in INSTALLED_LOCATIONS:
        if os.access(location, os.X_OK):
            return location
    raise WharfError("cannot find wharf: pass its path (wharf=…), set $WHARF, put it on PATH, "
                     f"or install it as {' or '.join(INSTALLED_LOCATIONS)}")


class Dialog:
    """A presented importer or exporter.

    ``result(timeout)`` waits for the end and returns the URLs (``file:`` URLs; for the
    importer the human's picks, for the exporter the files written). It raises
    :class:`DialogCancelled` when the dialog was cancelled (SwiftUI's ``onCancellation``),
    :class:`DialogFailed` for the failure side of the ``Result``, :class:`ConnectionLost` if the
    server went away first, and :class:`WharfTimeout` if ``timeout`` seconds pass first.
    ``events()`` iterates over everything the server streams about the dialog.
    """

    def __init__(self, client: "WharfClient", record: DialogRecord) -> None:
        self._client = client
        self._record = record
        self.id = record.id
        self.kind = record.kind
        self._changed = threading.Condition()
        record.on_event = self._wake

    def __repr__(self) -> str:
        return f"<Dialog {self.id} {self.kind}{' ended' if self.done() else ''}>"

    def _wake(self, _event: DialogEvent) -> None:
        with self._changed:
            self._changed.notify_all()

    def done(self) -> bool:
        with self._changed:
            return self._record.done

    def final_event(self, timeout: Optional[float] = None) -> DialogEvent:
        """Waits for the final event (raises WharfTimeout if ``timeout`` seconds pass first)."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._record.done, timeout):
                raise WharfTimeout(f"dialog {self.id} has not ended after {timeout} s")
            return self._record.events[-1]

    def result(self, timeout: Optional[float] = None) -> List[str]:
        """The URLs the dialog ended with; raises as the class documentation says."""
        return outcome_urls(self.id, self.final_event(timeout))

    @property
    def content_types(self) -> Optional[List[str]]:
        """For a completed exporter: the content type each document was written as."""
        with self._changed:
            return self._record.content_types

    def events(self, timeout: Optional[float] = None) -> Iterator[DialogEvent]:
        """Every event of this dialog from the first, waiting for new ones, until the final one
        (which is yielded too). ``timeout`` bounds each wait. Only the last EVENTS_KEPT before
        the final one are kept: an iterator further behind skips to the oldest kept
        (``on_notification`` hears every one)."""
        index = 0
        while True:
            with self._changed:
                if not self._changed.wait_for(lambda: self._record.received > index, timeout):
                    raise WharfTimeout(f"no event from dialog {self.id} for {timeout} s")
                index, event = self._record.event_from(index)
            index += 1
            yield event
            if event.is_final:
                return

    def cancel(self, timeout: Optional[float] = None) -> bool:
        """Ends the dialog from the app side (reason ``client``). False if it had already ended."""
        return self._client._call(calls.cancel(self.id), timeout)


class Presentation(PresentationFields):
    """The frontend role: one dialog the server asks this client to draw (``presenter/show``).

    Browse with :meth:`list` / :meth:`entries`, then answer with :meth:`choose` (importer),
    :meth:`save` (exporter), :meth:`move` (mover), :meth:`dismiss`, or :meth:`fail` when
    drawing it failed.
    :attr:`hidden` is set when the app side ended the dialog (``presenter/hide``) or the
    server went away.
    """

    def __init__(self, client: "WharfClient", params: Dict[str, JSON]) -> None:
        super().__init__(params)
        self._client = client
        self.hidden = threading.Event()

    def list(self, directory: Optional[str] = None, cursor: Optional[str] = None,
             limit: Optional[int] = None, timeout: Optional[float] = None,
             show_hidden: Optional[bool] = None) -> DirectoryListing:
        """One page of ``directory`` (default: where the dialog opened). ``show_hidden`` lists
        hidden files (names starting with ``.``) or not; default: as the dialog's
        ``includeHiddenFiles``."""
        return self._client._call(
            calls.list_directory(self.dialog_id, directory, cursor, limit, show_hidden), timeout)

    def entries(self, directory: Optional[str] = None, page_size: Optional[int] = None,
                timeout: Optional[float] = None,
                show_hidden: Optional[bool] = None) -> Iterator[DirectoryEntry]:
        """Every entry of ``directory``, page after page."""
        cursor = None
        while True:
            page = self.list(directory, cursor, page_size, timeout, None if cursor else show_hidden)
            yield from page.entries
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def choose(self, urls: Sequence[str], timeout: Optional[float] = None) -> None:
        """The human picked ``urls`` (an importer). Raises RequestError ``choiceRejected`` if the
        dialog does not allow them; the dialog then stays open."""
        self._client._call(calls.choose(self.dialog_id, urls), timeout)

    def save(self, url: str, content_type: Optional[str] = None, overwrite: bool = False,
             timeout: Optional[float] = None) -> None:
        """The human chose where to save (an exporter); ``overwrite`` confirms replacing a file."""
        self._client._call(calls.save(self.dialog_id, url, content_type, overwrite), timeout)

    def move(self, folder: str, conflict_resolution: Optional[str] = None, timeout: Optional[float] = None) -> None:
        """The human chose the folder to move a mover's files into. When names there are taken
        and ``conflict_resolution`` is None, raises RequestError ``nameConflict`` (its ``data``
        has ``urls`` and ``names``) and the dialog stays open: ask the human, then call again
        with ``"replace"`` or ``"keepBoth"``."""
        self._client._call(calls.move(self.dialog_id, folder, conflict_resolution), timeout)

    def dismiss(self, timeout: Optional[float] = None) -> None:
        """The human closed the dialog without choosing (reason ``user``)."""
        self._client._call(calls.dismiss(self.dialog_id), timeout)

    def fail(self, message: str, timeout: Optional[float] = None) -> None:
        """The presenter cannot go on (its own code failed): the dialog ends with a
        ``presenterFailed`` error carrying ``message``. A handler that raises does this itself."""
        self._client._call(calls.fail(self.dialog_id, message), timeout)


class WharfClient:
    """A session with one ``wharf`` server.

    Make one with :meth:`spawn` (starts ``wharf`` and initializes it) or :meth:`attach`
    (given streams). Use it as a context manager to shut the server down politely.
    Every method is thread safe.
    """

    def __init__(self, reader: IO[bytes], writer: IO[bytes], framing: str = LSP,
                 process: "Optional[subprocess.Popen[bytes]]" = None, timeout: float = DEFAULT_TIMEOUT,
                 traffic: Optional[TrafficListener] = None) -> None:
        self.process = process
        self.timeout = timeout
        self.initialize_result: Optional[InitializeResult] = None
        self._output = _Output()
        self._core = ProtocolCore(framing)
        self._router = Router()
        self._lock = threading.RLock()
        self._futures: Dict[int, "Future[JSON]"] = {}
        self._hooks: Dict[int, Callable[[JSON], None]] = {}
        self._dialogs: Dict[str, Dialog] = {}
        self._presentations: Dict[str, Presentation] = {}
        self._present_handler: Optional[PresentHandler] = None
        self._presents_dialogs = False
        self._listeners: List[Callable[[str, JSON], None]] = []
        self._traffic = traffic
        self._stderr = OutputTail()
        self._stderr_thread: Optional[threading.Thread] = None
        self._work: "queue.Queue[Optional[Callable[[], None]]]" = queue.Queue()
        #: What the notification listeners are to hear, in order (the listeners thread's work).
        self._heard: "queue.Queue[Optional[Callable[[], None]]]" = queue.Queue()
        self._listeners_behind = False
        # The client's threads hold it only while they handle something (see _read_loop): a
        # client dropped without close() is collected, and then this ends its server. Not at
        # exit: the pipes close with the process.
        self._end_input = weakref.finalize(self, WharfClient._close_input, self._output, self._work)
        self._end_input.atexit = False
        self._reader_thread = threading.Thread(target=WharfClient._read_loop,
                                               args=(weakref.ref(self), reader, process, self._heard),
                                               name="wharf-reader", daemon=True)
        threading.Thread(target=WharfClient._work_loop, args=(self._work,), name="wharf-dispatcher",
                         daemon=True).start()
        self._listeners_thread = threading.Thread(target=WharfClient._work_loop, args=(self._heard,),
                                                  name="wharf-listeners", daemon=True)
        self._listeners_thread.start()
        threading.Thread(target=WharfClient._write_loop, args=(writer, self._output), name="wharf-writer",
                         daemon=True).start()
        if process is not None and process.stderr is not None:
            self._stderr_thread = threading.Thread(target=WharfClient._collect_stderr,
                                                   args=(process.stderr, self._stderr, self._lock),
                                                   name="wharf-stderr", daemon=True)
            self._stderr_thread.start()
        self._reader_thread.start()

    # Making one

    @classmethod
    def spawn(cls, wharf: Optional[str] = None, args: Sequence[str] = (), *, app: str = "python",
              presents_dialogs: bool = False, prefers_desktop_dialogs: bool = False,
              on_present: Optional[PresentHandler] = None, framing: str = LSP, env: Optional[Dict[str, str]] = None,
              initialize: bool = True, timeout: float = DEFAULT_TIMEOUT,
              traffic: Optional[TrafficListener] = None) -> "WharfClient":
        """Starts ``wharf`` (``wharf`` is its path; see :func:`find_wharf`) with ``args`` and,
        unless ``initialize`` is false, initializes the session as app identity ``app``.
        ``on_present`` takes the frontend role from the start (see :meth:`on_present`);
        ``traffic`` sees every message from the first (see :meth:`on_traffic`)."""
        command = [find_wharf(wharf), *args]
        if framing != LSP:
            command += ["--framing", framing]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=None if env is None else {**os.environ, **env})
        assert process.stdout is not None and process.stdin is not None
        client = cls(process.stdout, process.stdin, framing, process=process, timeout=timeout, traffic=traffic)
        if on_present is not None:
            client.on_present(on_present)
        if initialize:
            try:
                client.initialize(app=app, presents_dialogs=presents_dialogs,
                                  prefers_desktop_dialogs=prefers_desktop_dialogs)
            except BaseException:
                client.kill()
                raise
        return client

    @classmethod
    def attach(cls, reader: IO[bytes], writer: IO[bytes], framing: str = LSP,
               timeout: float = DEFAULT_TIMEOUT) -> "WharfClient":
        """A client of whatever serves on ``reader``/``writer``; call :meth:`initialize` next."""
        return cls(reader, writer, framing, timeout=timeout)

    def __enter__(self) -> "WharfClient":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # The wire

    def request(self, method: str, params: JSON = None, timeout: Optional[float] = None) -> JSON:
        """Sends a request and waits for its result; raises RequestError, ConnectionLost or
        WharfTimeout."""
        return self._call(Call(method, params, lambda result: result), timeout)

    def notify(self, method: str, params: JSON = None) -> None:
        """Sends a notification. When wharf has not read what was sent before (see
        SEND_BUFFER_BYTES), waits for room at most the client's timeout, then raises
        WharfTimeout, and nothing is sent."""
        if not self._notify(method, params, time.monotonic() + self.timeout):
            raise WharfTimeout(f"{method} could not be sent within {self.timeout} s: wharf is not reading")

    def _notify(self, method: str, params: JSON, deadline: Optional[float], waits: bool = True) -> bool:
        """Sends a notification (see _send); False if there was no room for it before ``deadline``."""
        def make() -> Tuple[bytes, Dict[str, JSON]]:
            with self._lock:
                frame = self._core.notify(method, params)
            return frame, {"jsonrpc": "2.0", "method": method, **({} if params is None else {"params": params})}
        return self._send(make, method, deadline, waits)

    def on_traffic(self, listener: Optional[TrafficListener]) -> None:
        """Calls ``listener("send" | "receive", message)`` for every message, in order: a
        transcript of the session (``make demo`` prints one). None stops it. It runs where the
        message is sent or read (the reader thread), to keep that order: keep it short, and do
        not call the client from it. What the listener raises is logged (logger
        ``wharf_client``) and goes no further."""
        self._traffic = listener

    def on_notification(self, listener: Callable[[str, JSON], None]) -> Callable[[], None]:
        """Calls ``listener(method, params)`` for every notification, in order, on a thread of
        the listeners' own: the reader never waits for it, so a listener that blocks, or that
        calls the client (a request waits for its answer, which the reader reads), stalls no
        answer and no dialog, only the listeners after it. Should they fall LISTENER_BACKLOG
        notifications behind, later ones are not handed to them until they catch up (logged).
        By the time close() returns, the listeners have heard every notification received
        (unless one is still blocked when its timeout runs out). What a listener raises is
        logged (logger ``wharf_client``) and ends nothing. Returns a function that removes the
        listener."""
        with self._lock:
            self._listeners.append(listener)

        def remove() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return remove

    def _call(self, call: Call[T], timeout: Optional[float] = None,
              hook: Optional[Callable[[JSON], None]] = None) -> T:
        wait = self.timeout if timeout is None else timeout
        # One deadline for the wait for room to send it and the wait for its answer.
        deadline = time.monotonic() + wait
        request_id, future = self._start(call.method, call.params, hook, deadline)
        if request_id is None:  # no room before the deadline: never sent, nothing to cancel
            raise WharfTimeout(f"{call.method} got no answer within {wait} s (wharf is not reading)")
        try:
            result = future.result(max(0.0, deadline - time.monotonic()))
        except concurrent.futures.TimeoutError:  # not the builtin TimeoutError before Python 3.11
            if self._output.withdraw(request_id):
                # Still queued: the server never saw it, so it is taken out, not cancelled.
                with self._lock:
                    self._core.forget(request_id)
                    self._futures.pop(request_id, None)
                    self._hooks.pop(request_id, None)
                raise WharfTimeout(f"{call.method} got no answer within {wait} s (wharf is not reading)") from None
            with self._lock:
                expired = self._core.expire(request_id)
                if expired:
                    self._futures.pop(request_id, None)
                    self._hooks.pop(request_id, None)
            if not expired:  # answered (or the connection ended) just now: the reader settles it
                return call.read(future.result())
            with contextlib.suppress(ConnectionLost):
                # Tiny, and owed now: it does not wait for room (the caller's time is up), but
                # still goes after what was queued before it.
                self._notify("$/cancelRequest", {"id": request_id}, None, waits=False)
            raise WharfTimeout(f"{call.method} got no answer within {wait} s") from None
        return call.read(result)

    def _start(self, method: str, params: JSON, hook: Optional[Callable[[JSON], None]],
               deadline: Optional[float]) -> "Tuple[Optional[int], Future[JSON]]":
        """The request's id and its future: the id is 0 if the request could not be sent (the
        future holds why), None if there was no room for it before ``deadline``."""
        future: "Future[JSON]" = Future()
        ids: List[int] = []

        def make() -> Tuple[bytes, Dict[str, JSON]]:
            # Numbered and encoded only once it may go: a caller held back holds no copy of it.
            with self._lock:
                request_id, frame = self._core.request(method, params)
                self._futures[request_id] = future
                if hook is not None:
                    self._hooks[request_id] = hook
            ids.append(request_id)
            message: Dict[str, JSON] = {"jsonrpc": "2.0", "id": request_id, "method": method}
            if params is not None:
                message["params"] = params
            return frame, message
        try:
            if not self._send(make, method, deadline):
                return None, future
        except ConnectionLost as error:  # before it was made: nothing to forget
            future.set_exception(error)
            return 0, future
        return ids[0], future

    def _send(self, make: Callable[[], Tuple[bytes, Dict[str, JSON]]], what: str, deadline: Optional[float],
              waits: bool = True) -> bool:
        """Queues the frame ``make()`` gives for the writer thread once there is room for it (at
        once when not ``waits``; see _Output); False if ``deadline`` came first, and nothing
        was made or sent. Raises ConnectionLost once the input is closed, or writing failed.
        The caller never waits on the pipe itself: a server that reads nothing (wedged,
        stopped) blocks the writer thread, and senders only until their deadlines, so a
        request's timeout still holds and close() still gets to kill it."""
        def made() -> Tuple[bytes, Optional[int]]:
            frame, message = make()
            # Under the output's lock: the traffic listener hears the messages in the order they go.
            if self._traffic is not None:
                call_listener(self._traffic, "send", message)
            return frame, message["id"] if "method" in message and "id" in message else None
        return self._output.put(made, what, deadline, waits)

    # Lifecycle

    def initialize(self, app: str = "python", presents_dialogs: bool = False, prefers_desktop_dialogs: bool = False,
                   trace: Optional[str] = None, version: Optional[str] = None,
                   timeout: Optional[float] = None) -> InitializeResult:
        """``initialize`` then ``initialized``. ``presents_dialogs``: this client draws dialogs
        (register :meth:`on_present`); with ``prefers_desktop_dialogs`` too, the desktop's own
        dialog is used where it can be (``initialize_result.presenter`` says which). ``timeout``
        bounds the wait for the answer, as for every request."""
        self._presents_dialogs = presents_dialogs
        self.initialize_result = self._call(calls.initialize(app, presents_dialogs, prefers_desktop_dialogs, trace,
                                                             version), timeout)
        self.notify("initialized", {})
        return self.initialize_result

    def ping(self, timeout: Optional[float] = None) -> None:
        self._call(calls.ping(), timeout)

    def shutdown(self, timeout: Optional[float] = None) -> None:
        self._call(calls.shutdown(), timeout)

    def exit(self) -> None:
        self.notify("exit")

    def close(self, timeout: float = 10.0) -> Optional[int]:
        """Shuts down politely (``shutdown``, ``exit``) if the server is still there, then waits
        for it; the exit status of a spawned server. ``timeout`` bounds the whole close: a
        spawned server that has not exited within it is killed (the status is then
        ``-signal.SIGKILL``)."""
        # One deadline for every stage: each waiting the whole timeout made a server that does
        # not answer (wedged, stopped) cost three times it (shutdown, reader, exit).
        deadline = time.monotonic() + timeout

        def left() -> float:
            return max(0.0, deadline - time.monotonic())
        if self._core.closed is None:
            with contextlib.suppress(WharfError):
                self.shutdown(left())
                self._notify("exit", None, deadline)
        self._end_input()
        self._reader_thread.join(left())
        status = None if self.process is None else _reap(self.process, left())
        if threading.current_thread() is not self._listeners_thread:  # (a listener may close)
            self._listeners_thread.join(left())  # what was read has been heard
        return status

    def kill(self) -> None:
        """Kills a spawned server at once (tests of a server dying use this)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    @property
    def stderr_tail(self) -> str:
        """The last lines the spawned server wrote to standard error."""
        with self._lock:
            return self._stderr.text

    # Content types

    def describe_types(self, identifiers: Sequence[str],
                       timeout: Optional[float] = None) -> List[Union[TypeDescription, RequestError]]:
        """``contentTypes/describe``: a description per identifier, or the error for that one."""
        return self._call(calls.describe_types(identifiers), timeout)

    def identify(self, paths: Sequence[str], sniff: bool = True,
                 timeout: Optional[float] = None) -> List[Union[Identification, RequestError]]:
        """``contentTypes/identify``: what each file is, or the error for that path."""
        return self._call(calls.identify(paths, sniff), timeout)

    def conforms(self, identifier: str, to: str, timeout: Optional[float] = None) -> bool:
        return self._call(calls.conforms(identifier, to), timeout)

    def type_for_extension(self, extension: str, conforming_to: Optional[str] = None,
                           timeout: Optional[float] = None) -> Optional[str]:
        return self._call(calls.type_for_extension(extension, conforming_to), timeout)

    def type_for_mime_type(self, mime_type: str, conforming_to: Optional[str] = None,
                           timeout: Optional[float] = None) -> Optional[str]:
        return self._call(calls.type_for_mime_type(mime_type, conforming_to), timeout)

    def declare_types(self, types: Sequence[Dict[str, JSON]], timeout: Optional[float] = None) -> List[str]:
        """``contentTypes/declare``: ``[{"identifier", "conformsTo", …}]`` for this client only."""
        return self._call(calls.declare_types(types), timeout)

    def filters(self, identifiers: Sequence[str], timeout: Optional[float] = None) -> DialogFilters:
        return self._call(calls.filters(identifiers), timeout)

    # Dialogs

    def present_importer(self, allowed_content_types: Sequence[str], multiple: bool = False, *,
                         presentation_id: Optional[str] = None, options: Optional[DialogOptions] = None,
                         timeout: Optional[float] = None, **option_fields: Any) -> Dialog:
        """Presents an importer; returns the :class:`Dialog` once it is presented.

        Options may be given as a :class:`DialogOptions` or as keywords (``title="Open"``,
        ``default_directory=…``, ``timeout_ms=…``). ``timeout`` bounds the wait for the answer."""
        params = calls.importer_params(allowed_content_types, multiple, presentation_id, options, option_fields)
        return self._present("presentImporter", params, "importer", [], timeout)

    def present_exporter(self, documents: Sequence[ExportDocument], content_type: Optional[str] = None, *,
                         content_types: Optional[Sequence[str]] = None, default_filename: Optional[str] = None,
                         presentation_id: Optional[str] = None, options: Optional[DialogOptions] = None,
                         timeout: Optional[float] = None, **option_fields: Any) -> Dialog:
        """Presents an exporter for ``documents``. ``content_type`` is the FileDocument form,
        ``content_types`` the WritableDocument form. Lazy documents (``snapshot=``) are asked
        for their bytes once the human has chosen where to save."""
        params = calls.exporter_params(documents, content_type, content_types, default_filename, presentation_id,
                                       options, option_fields)
        return self._present("presentExporter", params, "exporter", [d.snapshot for d in documents], timeout)

    def present_mover(self, urls: Sequence[str], *, presentation_id: Optional[str] = None,
                      options: Optional[DialogOptions] = None, timeout: Optional[float] = None,
                      **option_fields: Any) -> Dialog:
        """Presents a mover (``fileMover``): the human chooses a folder and ``urls``, each one
        this client was given (a pick, an export, a resolved bookmark), are moved there.
        :meth:`Dialog.result` is then their new URLs, in the order given, which the client
        holds the same rights to; the old ones are no longer granted. A URL not granted raises
        RequestError ``accessDenied`` and nothing is presented."""
        params = calls.mover_params(urls, presentation_id, options, option_fields)
        return self._present("presentMover", params, "mover", [], timeout)

    def _present(self, method: str, params: Dict[str, JSON], kind: str, snapshots: List[Any],
                 timeout: Optional[float]) -> Dialog:
        made: List[Dialog] = []

        def register(result: JSON) -> None:
            # On the reader thread, before the next message is read: nothing about this dialog
            # can arrive unrouted.
            with self._lock:
                dialog = Dialog(self, self._router.register(str(result["dialogId"]), kind, snapshots))
                if not dialog._record.done:  # its end may have come before the answer
                    self._dialogs[dialog.id] = dialog
            made.append(dialog)
        self._call(Call(method, params, lambda result: None), timeout, hook=register)
        return made[0]

    def dialog(self, dialog_id: str) -> Optional[Dialog]:
        """The open dialog ``dialog_id``; None once it has ended: the client forgets ended
        dialogs (keep the :class:`Dialog` you were given to read its outcome later)."""
        with self._lock:
            return self._dialogs.get(dialog_id)

    def on_present(self, handler: PresentHandler) -> None:
        """Takes the frontend role: ``handler(presentation)`` runs, on a thread of its own, for
        every dialog the server asks this client to draw (initialize with
        ``presents_dialogs=True`` for the server to ask). If the handler raises, the dialog ends
        at once with ``presenterFailed`` carrying the exception's message (``dialog/fail``); a
        dialog shown while no handler is registered ends the same way."""
        with self._lock:
            self._present_handler = handler

    # Access

    def resolve_access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None,
                       timeout: Optional[float] = None) -> Lease:
        """``resolveAccess``: starts access to a granted URL or a bookmark. Release it once."""
        return self._call(calls.resolve_access(url, bookmark), timeout)

    def release_access(self, access_id: str, timeout: Optional[float] = None) -> None:
        self._call(calls.release_access(access_id), timeout)

    @contextlib.contextmanager
    def access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None,
               timeout: Optional[float] = None) -> Iterator[str]:
        """``with client.access(url) as path:`` resolves access, yields the local path, and
        always releases it, whatever happens in the block. The path is made from the lease's
        ``url`` (:func:`url_to_path`), not its ``path``, which is for display and may name
        another file when the name is not UTF-8.

        A release that fails raises (RequestError, WharfTimeout), unless the block raised:
        then the block's exception is what propagates, and the release failure is logged
        (logger ``wharf_client``) and, from Python 3.11, added to it as a note."""
        lease = self.resolve_access(url, bookmark=bookmark, timeout=timeout)
        try:
            yield url_to_path(lease.url)
        except BaseException as error:
            # The block's exception goes on; a release failing too is reported with it, not
            # instead of it (see release_failed).
            try:
                self.release_access(lease.access_id, timeout)
            except ConnectionLost:
                pass  # the server is gone, and its leases with it
            except Exception as failure:
                release_failed(error, failure, lease.access_id)
            raise
        with contextlib.suppress(ConnectionLost):
            self.release_access(lease.access_id, timeout)

    def create_bookmark(self, url: str, timeout: Optional[float] = None) -> str:
        return self._call(calls.create_bookmark(url), timeout)

    def list_access(self, timeout: Optional[float] = None) -> AccessList:
        return self._call(calls.list_access(), timeout)

    def revoke_access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None,
                      timeout: Optional[float] = None) -> int:
        return self._call(calls.revoke_access(url, bookmark), timeout)

    def read_file(self, access_id: str, offset: int = 0, length: Optional[int] = None,
                  timeout: Optional[float] = None) -> Tuple[bytes, bool]:
        """Reads through a lease: ``(bytes, eof)``."""
        return self._call(calls.read_file(access_id, offset, length), timeout)

    def write_file(self, access_id: str, data: bytes, offset: int = 0, truncate: bool = False,
                   timeout: Optional[float] = None) -> int:
        """Writes through a lease that is not read-only; the number of bytes written."""
        return self._call(calls.write_file(access_id, data, offset, truncate), timeout)

    # Reading (the reader thread)

    @staticmethod
    def _read_loop(client_ref: "weakref.ref[WharfClient]", reader: IO[bytes],
                   process: "Optional[subprocess.Popen[bytes]]",
                   heard: "queue.Queue[Optional[Callable[[], None]]]") -> None:
        """The reader thread. It holds the client only while it handles what it has read, never
        while it waits for more, so a client dropped without close() is collected; its finalizer
        closes the server's input (:meth:`_close_input`). This thread then reads the server's
        output to its end, so the server is never blocked writing, and reaps it. Last, it ends
        the listeners thread, once that has told the listeners what was read."""
        read = cast(Callable[[int], bytes], getattr(reader, "read1", reader.read))
        reason: Optional[str] = None
        client: Optional[WharfClient] = None
        try:
            while True:
                client = None
                data = read(65536)
                client = client_ref()
                if client is None:  # dropped: read on to the end
                    if not data:
                        break
                    continue
                if not data:
                    with client._lock:
                        client._core.end_of_input()
                    break
                with client._lock:
                    incoming = client._core.receive(data)
                for item in incoming:
                    client._handle(item)
        except (FramingError, ValueError) as error:
            reason = f"the server sent something unreadable: {error}"
        except OSError as error:
            reason = f"reading from the server failed: {error}"
        finally:
            client = client_ref()
            if client is not None:
                client._finish(reason)
            elif process is not None:
                _reap(process, 10.0)
            client = None
            heard.put(None)

    def _handle(self, item: Union[Response, Notification, ServerRequest]) -> None:
        if self._traffic is not None:
            call_listener(self._traffic, "receive", _as_message(item))
        if isinstance(item, Response):
            if item.late:
                self._abandon(item.late_dialog)
                return
            with self._lock:
                future = self._futures.pop(item.id, None)
                hook = self._hooks.pop(item.id, None)
            if future is None:
                return
            if item.error is not None:
                future.set_exception(item.error)
                return
            if hook is not None:
                try:
                    hook(item.result)
                except Exception as failure:  # a malformed result: fail the call, not the reader
                    future.set_exception(failure)
                    return
            future.set_result(item.result)
        elif isinstance(item, Notification):
            self._route(item.method, item.params)
        else:
            self._work.put(lambda: self._serve(item))

    def _abandon(self, dialog_id: Optional[str]) -> None:
        """A present that timed out was answered after all, with a dialog nobody waits for:
        it is cancelled (on a thread of its own, errors ignored) and its events dropped."""
        if dialog_id is None:
            return
        with self._lock:
            self._router.abandon(dialog_id)

        def cancel() -> None:
            with contextlib.suppress(WharfError):
                self._call(calls.cancel(dialog_id))
        threading.Thread(target=cancel, name=f"wharf-cancel-{dialog_id}", daemon=True).start()

    def _route(self, method: str, params: JSON) -> None:
        with self._lock:
            listeners = list(self._listeners)
        if listeners:
            self._tell(listeners, method, params)
        with self._lock:
            routed = self._router.route(method, params)
            if routed is not None and routed.event is not None and routed.event.is_final:
                # Ended: forgotten here as in the router (see Router), under the same lock, so
                # that whoever its end wakes finds it gone.
                self._presentations.pop(routed.dialog_id, None)
                self._dialogs.pop(routed.dialog_id, None)
        if routed is None:
            return
        if routed.what == "show":
            self._show(Presentation(self, routed.params))
        elif routed.what == "hide":
            with self._lock:
                presentation = self._presentations.pop(routed.dialog_id, None)
            if presentation is not None:
                presentation.hidden.set()

    def _tell(self, listeners: List[Callable[[str, JSON], None]], method: str, params: JSON) -> None:
        """Hands a notification to the listeners thread (reader thread), unless the listeners are
        LISTENER_BACKLOG behind."""
        if self._heard.qsize() >= LISTENER_BACKLOG:
            if not self._listeners_behind:
                LOG.warning("wharf_client notification listeners are %d notifications behind (one is blocked?): "
                            "%s and what follows is not handed to them until they catch up", LISTENER_BACKLOG, method)
            self._listeners_behind = True
            return
        self._listeners_behind = False

        def tell() -> None:
            for listener in listeners:
                call_listener(listener, method, params)
        self._heard.put(tell)

    def _show(self, presentation: Presentation) -> None:
        with self._lock:
            handler = self._present_handler
            self._presentations[presentation.dialog_id] = presentation

        def draw() -> None:
            if handler is None:
                message = NO_HANDLER_MESSAGE
            else:
                try:
                    handler(presentation)
                    return
                except Exception as error:
                    message = failure_message(error)
            # The dialog may have ended meanwhile (dialogEnded): then there is nothing to fail.
            with contextlib.suppress(RequestError, ConnectionLost, WharfTimeout):
                presentation.fail(message)
        threading.Thread(target=draw, name=f"wharf-present-{presentation.dialog_id}", daemon=True).start()

    def _serve(self, request: ServerRequest) -> None:
        """Server→client requests (dispatcher thread): ``exporter/snapshot``."""
        try:
            result = self._answer(request)
            with self._lock:
                frame = self._core.respond(request.id, result)
            message: Dict[str, JSON] = {"jsonrpc": "2.0", "id": request.id, "result": result}
        except Exception as failure:
            error: Dict[str, JSON] = ({"code": failure.code, "message": failure.message}
                                      if isinstance(failure, RequestError)
                                      else {"code": -32603, "message": failure_message(failure)})
            with self._lock:
                frame = self._core.respond(request.id, error=error)
            message = {"jsonrpc": "2.0", "id": request.id, "error": error}
        with contextlib.suppress(ConnectionLost):
            # Waits for room as long as it takes: wharf asked for it, and close() ends the wait.
            self._send(lambda: (frame, message), "a response", None)

    def _answer(self, request: ServerRequest) -> JSON:
        params = snapshot_params(request)
        with self._lock:
            record = self._router.dialogs.get(str(params.get("dialogId")))
        provider = record.snapshot_provider(params.get("documentIndex")) if record is not None else None
        if provider is None:
            raise RequestError(request.method, -32602, f"document {params.get('documentIndex')} of "
                                                       f"{params.get('dialogId')} has no snapshot function")
        return calls.snapshot_result(provider(str(params.get("contentType"))))

    def _finish(self, reason: Optional[str]) -> None:
        error = ConnectionLost(reason or self._describe_end())
        with self._lock:
            methods = self._core.close(error)
            futures, self._futures = self._futures, {}
            self._hooks.clear()
            presentations, self._presentations = list(self._presentations.values()), {}
            self._router.disconnect(str(error))
            self._dialogs.clear()
        del methods
        for future in futures.values():
            future.set_exception(ConnectionLost(f"no answer came: {error}"))
        for presentation in presentations:
            presentation.hidden.set()
        self._work.put(None)

    @staticmethod
    def _work_loop(work: "queue.Queue[Optional[Callable[[], None]]]") -> None:
        """The dispatcher thread. It holds the client only while it runs a job, not while it
        waits for the next (see _read_loop)."""
        while True:
            job = work.get()
            if job is None:
                return
            job()
            del job

    @staticmethod
    def _write_loop(writer: IO[bytes], output: "_Output") -> None:
        """The writer thread: writes the queued frames in order, then closes the server's input
        once :meth:`_Output.close` was called (or a write failed). It never holds the client."""
        try:
            while True:
                frame = output.take()
                if frame is None:
                    return
                writer.write(frame)
                writer.flush()
                output.written(frame)
        except (OSError, ValueError) as error:
            output.close(f"writing to wharf failed: {error}", discard=True)
        finally:
            with contextlib.suppress(OSError, ValueError):
                writer.close()

    @staticmethod
    def _close_input(output: "_Output", work: "queue.Queue[Optional[Callable[[], None]]]") -> None:
        """Closes the server's input once what was sent before is written, which ends the server
        (as ``exit`` does, if it was not sent), and stops the dispatcher thread. Run once
        (``_end_input``, a weakref.finalize): by close(), or when a client dropped without
        close() is collected."""
        output.close("the client closed wharf's input")
        work.put(None)

    def _describe_end(self) -> str:
        """Why the input ended, for the errors of everything still waiting (reader thread)."""
        status = None
        if self.process is not None:
            # Output ends a moment before the process does; its status makes the better story,
            # and its standard error, which ends with it, its last words.
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = self.process.wait(1)
        if self._stderr_thread is not None:
            self._stderr_thread.join(1)
        what = f"wharf exited with status {status}" if status is not None else "the server closed the connection"
        tail = self.stderr_tail.strip()
        return what + (f"; its last words: {tail[-500:]}" if tail else "")

    @staticmethod
    def _collect_stderr(stream: IO[bytes], tail: OutputTail, lock: threading.RLock) -> None:
        """Reads standard error to its end, in chunks (see :class:`OutputTail`)."""
        read = cast(Callable[[int], bytes], getattr(stream, "read1", stream.read))
        with contextlib.suppress(OSError, ValueError):
            for data in iter(lambda: read(65536), b""):
                with lock:
                    tail.feed(data)


class _Output:
    """The frames waiting for the writer thread, in order, and why nothing more may be sent.

    Bounded: while the frames queued and the one being written come to SEND_BUFFER_BYTES, a
    sender waits (until its deadline), first come first served, and its message is made only
    once it may go. The queue had no limit: a wharf that read nothing (wedged, stopped) had the
    client encode and hold everything callers sent, 10 MiB for 40 requests of 256 KiB."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._frames: Deque[Tuple[Optional[int], bytes]] = deque()  # (request id or None, frame)
        self._turns: Deque[object] = deque()  # the senders waiting for room, in the order they came
        self._buffered = 0  # bytes queued or being written
        self._closed: Optional[str] = None

    @property
    def waiting(self) -> int:
        """How many senders wait for room."""
        with self._changed:
            return len(self._turns)

    def put(self, make: Callable[[], Tuple[bytes, Optional[int]]], what: str, deadline: Optional[float],
            waits: bool = True) -> bool:
        """Queues the frame ``make()`` gives (with the id of the request it is, if one) once it
        is this sender's turn and there is room, or at once when not ``waits``; False, with
        nothing made, if ``deadline`` (time.monotonic()) came first. Raises ConnectionLost once
        closed."""
        with self._changed:
            if waits:
                turn = object()
                self._turns.append(turn)
                try:
                    while self._closed is None and not (self._turns[0] is turn
                                                        and self._buffered < SEND_BUFFER_BYTES):
                        left = None if deadline is None else deadline - time.monotonic()
                        if left is not None and left <= 0:
                            return False
                        self._changed.wait(left)
                finally:
                    self._turns.remove(turn)
                    self._changed.notify_all()  # the next in line may have room now
            if self._closed is not None:
                raise ConnectionLost(f"cannot send {what}: {self._closed}")
            frame, request_id = make()
            self._frames.append((request_id, frame))
            self._buffered += len(frame)
            self._changed.notify_all()
            return True

    def withdraw(self, request_id: int) -> bool:
        """Takes out the request ``request_id`` if it is still queued (not yet being written)."""
        with self._changed:
            for entry in self._frames:
                if entry[0] == request_id:
                    self._frames.remove(entry)
                    self._buffered -= len(entry[1])
                    self._changed.notify_all()
                    return True
            return False

    def take(self) -> Optional[bytes]:
        """The next frame to write (it counts as buffered until :meth:`written`); None once
        closed and everything queued before is taken."""
        with self._changed:
            while not self._frames and self._closed is None:
                self._changed.wait()
            return self._frames.popleft()[1] if self._frames else None

    def written(self, frame: bytes) -> None:
        with self._changed:
            self._buffered -= len(frame)
            self._changed.notify_all()

    def close(self, why: str, discard: bool = False) -> None:
        """Nothing more is sent; the writer thread closes the input after what is queued (or
        at once, the queue dropped, when ``discard``: writing failed)."""
        with self._changed:
            if self._closed is None:
                self._closed = why
            if discard:
                self._frames.clear()
            self._changed.notify_all()


def _reap(process: "subprocess.Popen[bytes]", timeout: float) -> int:
    """Waits for a server whose input is closed to exit, killing it after ``timeout`` seconds;
    its exit status."""
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


def _as_message(item: Union[Response, Notification, ServerRequest]) -> Dict[str, JSON]:
    """The message an incoming item was read from, for traffic listeners."""
    if isinstance(item, Response):
        if item.error is not None:
            error: Dict[str, JSON] = {"code": item.error.code, "message": item.error.message}
            if item.error.data is not None:
                error["data"] = item.error.data
            return {"jsonrpc": "2.0", "id": item.id, "error": error}
        return {"jsonrpc": "2.0", "id": item.id, "result": item.result}
    message: Dict[str, JSON] = {"jsonrpc": "2.0", "method": item.method}
    if isinstance(item, ServerRequest):
        message["id"] = item.id
    if item.params is not None:
        message["params"] = item.params
    return message
