"""The synchronous client. :mod:`wharf_client.aio` wraps the same object for asyncio."""
from __future__ import annotations

import base64
import collections
import contextlib
import os
import shutil
import subprocess
import threading
from concurrent.futures import Future
from typing import Any, BinaryIO, Callable, Deque, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from .connection import Connection
from .dialogs import Dialog, DialogEvent, Presentation
from .errors import ConnectionLost, RequestError, WharfError
from .framing import LSP
from .types import (AccessList, DialogFilters, DialogOptions, ExportDocument, Identification, InitializeResult,
                    Lease, TypeDescription, contents_json)

#: How long a synchronous call waits for its answer by default before raising TimeoutError.
#: A guard against a wedged server, not a deadline: dialogs wait on humans through
#: ``Dialog.result()``, which has no default timeout.
DEFAULT_TIMEOUT = 60.0

PresentHandler = Callable[[Presentation], None]


def find_wharf(path: Optional[str] = None) -> str:
    """``path`` if given, else ``$WHARF``, else ``wharf`` on ``PATH``."""
    candidate = path or os.environ.get("WHARF") or shutil.which("wharf")
    if not candidate:
        raise WharfError("cannot find wharf: pass its path, set $WHARF, or put it on PATH")
    return candidate


class WharfClient:
    """A session with one ``wharf`` server.

    Make one with :meth:`spawn` (starts ``wharf`` and initializes it) or :meth:`attach`
    (given streams). Use it as a context manager to shut the server down politely.
    Every method is thread safe.
    """

    def __init__(self, reader: BinaryIO, writer: BinaryIO, framing: str = LSP,
                 process: Optional[subprocess.Popen] = None, timeout: float = DEFAULT_TIMEOUT,
                 traffic: Optional[Callable[[str, Any], None]] = None) -> None:
        self.process = process
        self.timeout = timeout
        self._lock = threading.Lock()
        self._dialogs: Dict[str, Dialog] = {}
        # Events about dialogs whose presentImporter/presentExporter answer has not been read
        # yet (a server may announce before it answers); handed over when the dialog registers.
        self._early: Dict[str, List[Any]] = {}
        self._presentations: Dict[str, Presentation] = {}
        self._present_handler: Optional[PresentHandler] = None
        self._notification_listeners: List[Callable[[str, Any], None]] = []
        self._stderr: Deque[str] = collections.deque(maxlen=40)
        self.initialize_result: Optional[InitializeResult] = None
        self._connection = Connection(reader, writer, framing, on_notification=self._route,
                                      on_request=self._serve, on_close=self._closed,
                                      describe_end=self._describe_end)
        self._connection.traffic = traffic
        if process is not None and process.stderr is not None:
            threading.Thread(target=self._collect_stderr, args=(process.stderr,), name="wharf-stderr",
                             daemon=True).start()
        self._connection.start()

    # Making one

    @classmethod
    def spawn(cls, wharf: Optional[str] = None, args: Sequence[str] = (), *, app: str = "python",
              presents_dialogs: bool = False, framing: str = LSP, env: Optional[Dict[str, str]] = None,
              initialize: bool = True, timeout: float = DEFAULT_TIMEOUT,
              traffic: Optional[Callable[[str, Any], None]] = None) -> "WharfClient":
        """Starts ``wharf`` (see :func:`find_wharf`) with ``args`` and, unless ``initialize`` is
        false, initializes the session as app identity ``app``. ``traffic`` sees every message
        from the first (see :meth:`on_traffic`)."""
        command = [find_wharf(wharf), *args]
        if framing != LSP:
            command += ["--framing", framing]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=None if env is None else {**os.environ, **env})
        client = cls(process.stdout, process.stdin, framing, process=process, timeout=timeout, traffic=traffic)
        if initialize:
            try:
                client.initialize(app=app, presents_dialogs=presents_dialogs)
            except BaseException:
                client.kill()
                raise
        return client

    @classmethod
    def attach(cls, reader: BinaryIO, writer: BinaryIO, framing: str = LSP,
               timeout: float = DEFAULT_TIMEOUT) -> "WharfClient":
        """A client of whatever serves on ``reader``/``writer``; call :meth:`initialize` next."""
        return cls(reader, writer, framing, timeout=timeout)

    def __enter__(self) -> "WharfClient":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # The wire

    def request_future(self, method: str, params: Any = None,
                       on_result: Optional[Callable[[Any], None]] = None) -> Future:
        return self._connection.request(method, params, on_result)

    def request(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Sends a request and waits for its result; raises RequestError or ConnectionLost."""
        future = self._connection.request(method, params)
        try:
            return future.result(self.timeout if timeout is None else timeout)
        except TimeoutError:
            raise TimeoutError(f"{method} got no answer within {self.timeout if timeout is None else timeout} s") from None

    def notify(self, method: str, params: Any = None) -> None:
        self._connection.notify(method, params)

    def on_traffic(self, listener: Optional[Callable[[str, Any], None]]) -> None:
        """Calls ``listener("send" | "receive", message)`` for every message, in order: a
        transcript of the session (``make demo`` prints one). None stops it."""
        self._connection.traffic = listener

    def on_notification(self, listener: Callable[[str, Any], None]) -> Callable[[], None]:
        """Calls ``listener(method, params)`` for every notification, in order, on the reader
        thread (keep it short). Returns a function that removes the listener."""
        with self._lock:
            self._notification_listeners.append(listener)
        def remove() -> None:
            with self._lock:
                if listener in self._notification_listeners:
                    self._notification_listeners.remove(listener)
        return remove

    # Lifecycle

    def initialize(self, app: str = "python", presents_dialogs: bool = False, trace: Optional[str] = None,
                   version: Optional[str] = None) -> InitializeResult:
        client_info: Dict[str, Any] = {"name": app}
        if version:
            client_info["version"] = version
        params: Dict[str, Any] = {"processId": os.getpid(), "clientInfo": client_info,
                                  "capabilities": {"presentsDialogs": presents_dialogs}}
        if trace:
            params["trace"] = trace
        self.initialize_result = InitializeResult.from_json(self.request("initialize", params))
        self.notify("initialized", {})
        return self.initialize_result

    def ping(self) -> None:
        self.request("ping", {})

    def shutdown(self) -> None:
        self.request("shutdown")

    def exit(self) -> None:
        self.notify("exit")

    def close(self, timeout: float = 10.0) -> Optional[int]:
        """Shuts down politely (``shutdown``, ``exit``) if the server is still there, then waits
        for it; the exit status of a spawned server."""
        if self._connection.closed is None:
            with contextlib.suppress(WharfError, TimeoutError, OSError):
                self.request("shutdown", timeout=timeout)
                self.notify("exit")
        self._connection.close_output()
        self._connection.wait_closed(timeout)
        if self.process is not None:
            try:
                return self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                return self.process.wait()
        return None

    def kill(self) -> None:
        """Kills a spawned server at once (tests of a server dying use this)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    @property
    def stderr_tail(self) -> str:
        """The last lines the spawned server wrote to standard error."""
        with self._lock:
            return "".join(self._stderr)

    # Content types

    def describe_types(self, identifiers: Sequence[str]) -> List[Union[TypeDescription, RequestError]]:
        """``contentTypes/describe``: a description per identifier, or the error for that one."""
        types = self.request("contentTypes/describe", {"identifiers": list(identifiers)})["types"]
        return [_item_error("contentTypes/describe", t) if "error" in t else TypeDescription.from_json(t) for t in types]

    def identify(self, paths: Sequence[str], sniff: bool = True) -> List[Union[Identification, RequestError]]:
        """``contentTypes/identify``: what each file is, or the error for that path."""
        results = self.request("contentTypes/identify", {"paths": list(paths), "sniff": sniff})["results"]
        return [_item_error("contentTypes/identify", r) if "error" in r else Identification.from_json(r) for r in results]

    def conforms(self, identifier: str, to: str) -> bool:
        return bool(self.request("contentTypes/conforms", {"identifier": identifier, "to": to})["conforms"])

    def type_for_extension(self, extension: str, conforming_to: Optional[str] = None) -> Optional[str]:
        params = {"filenameExtension": extension}
        if conforming_to:
            params["conformingTo"] = conforming_to
        return self.request("contentTypes/fromFilenameExtension", params)["identifier"]

    def type_for_mime_type(self, mime_type: str, conforming_to: Optional[str] = None) -> Optional[str]:
        params = {"mimeType": mime_type}
        if conforming_to:
            params["conformingTo"] = conforming_to
        return self.request("contentTypes/fromMIMEType", params)["identifier"]

    def declare_types(self, types: Sequence[Dict[str, Any]]) -> List[str]:
        """``contentTypes/declare``: ``[{"identifier", "conformsTo", …}]`` for this client only."""
        return self.request("contentTypes/declare", {"types": list(types)})["declared"]

    def filters(self, identifiers: Sequence[str]) -> DialogFilters:
        return DialogFilters.from_json(self.request("contentTypes/filters", {"identifiers": list(identifiers)}))

    # Dialogs

    def present_importer(self, allowed_content_types: Sequence[str], multiple: bool = False, *,
                         presentation_id: Optional[str] = None, options: Optional[DialogOptions] = None,
                         **option_fields: Any) -> Dialog:
        """Presents an importer; returns the :class:`Dialog` once it is presented.

        Options may be given as a :class:`DialogOptions` or as keywords
        (``title="Open"``, ``default_directory=…``, ``timeout_ms=…``)."""
        params = _importer_params(allowed_content_types, multiple, presentation_id, options, option_fields)
        return self._present("presentImporter", params, "importer", [])

    def present_exporter(self, documents: Sequence[ExportDocument], content_type: Optional[str] = None, *,
                         content_types: Optional[Sequence[str]] = None, default_filename: Optional[str] = None,
                         presentation_id: Optional[str] = None, options: Optional[DialogOptions] = None,
                         **option_fields: Any) -> Dialog:
        """Presents an exporter for ``documents``. ``content_type`` is the FileDocument form,
        ``content_types`` the WritableDocument form. Lazy documents (``snapshot=``) are asked
        for their bytes once the human has chosen where to save."""
        params = _exporter_params(documents, content_type, content_types, default_filename, presentation_id,
                                  options, option_fields)
        return self._present("presentExporter", params, "exporter", [document.snapshot for document in documents])

    def _present(self, method: str, params: Dict[str, Any], kind: str, snapshots: List[Any]) -> Dialog:
        holder: List[Dialog] = []
        def register(result: Any) -> None:
            # On the reader thread, before the next message is read: nothing about this dialog
            # can arrive unrouted.
            dialog = Dialog(self, result["dialogId"], kind, snapshots)
            holder.append(dialog)
            with self._lock:
                self._dialogs[dialog.id] = dialog
                early = self._early.pop(dialog.id, [])
            for item in early:
                self._deliver_to(dialog, *item)
        future = self._connection.request(method, params, on_result=register)
        future.result(self.timeout)
        return holder[0]

    def dialog(self, dialog_id: str) -> Optional[Dialog]:
        with self._lock:
            return self._dialogs.get(dialog_id)

    def on_present(self, handler: PresentHandler) -> None:
        """Takes the frontend role: ``handler(presentation)`` runs, on a thread of its own, for
        every dialog the server asks this client to draw. Initialize with
        ``presents_dialogs=True`` for the server to ask."""
        with self._lock:
            self._present_handler = handler

    # Access

    def resolve_access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None) -> Lease:
        """``resolveAccess``: starts access to a granted URL or a bookmark. Release it once."""
        if (url is None) == (bookmark is None):
            raise ValueError("give exactly one of url and bookmark")
        return Lease.from_json(self.request("resolveAccess", {"url": url} if url is not None else {"bookmark": bookmark}))

    def release_access(self, access_id: str) -> None:
        self.request("releaseAccess", {"accessId": access_id})

    @contextlib.contextmanager
    def access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None) -> Iterator[str]:
        """``with client.access(url) as path:`` resolves access, yields the local path, and
        always releases it, whatever happens in the block."""
        lease = self.resolve_access(url, bookmark=bookmark)
        try:
            yield lease.path
        finally:
            with contextlib.suppress(ConnectionLost):
                self.release_access(lease.access_id)

    def create_bookmark(self, url: str) -> str:
        return self.request("createBookmark", {"url": url})["bookmark"]

    def list_access(self) -> AccessList:
        return AccessList.from_json(self.request("listAccess", {}))

    def revoke_access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None) -> int:
        if (url is None) == (bookmark is None):
            raise ValueError("give exactly one of url and bookmark")
        return self.request("revokeAccess", {"url": url} if url is not None else {"bookmark": bookmark})["revoked"]

    def read_file(self, access_id: str, offset: int = 0, length: Optional[int] = None) -> Tuple[bytes, bool]:
        """Reads through a lease: ``(bytes, eof)``."""
        params: Dict[str, Any] = {"accessId": access_id, "offset": offset}
        if length is not None:
            params["length"] = length
        result = self.request("readFile", params)
        return base64.b64decode(result["base64"]), bool(result["eof"])

    def write_file(self, access_id: str, data: bytes, offset: int = 0, truncate: bool = False) -> int:
        """Writes through a lease that is not read-only; the number of bytes written."""
        return self.request("writeFile", {"accessId": access_id, "base64": base64.b64encode(data).decode("ascii"),
                                          "offset": offset, "truncate": truncate})["bytesWritten"]

    # Routing what the server sends (reader thread, in order)

    def _route(self, method: str, params: Any) -> None:
        with self._lock:
            listeners = list(self._notification_listeners)
        for listener in listeners:
            listener(method, params)
        if not isinstance(params, dict):
            return
        if method.startswith("dialog/"):
            self._deliver(params.get("dialogId"), "event", DialogEvent(method[len("dialog/"):], params))
        elif method == "presenter/show":
            self._show(params)
        elif method == "presenter/hide":
            with self._lock:
                presentation = self._presentations.pop(params.get("dialogId"), None)
            if presentation is not None:
                presentation.hidden.set()

    def _deliver(self, dialog_id: Any, what: str, payload: Any) -> None:
        with self._lock:
            dialog = self._dialogs.get(dialog_id)
            if dialog is None:
                self._early.setdefault(dialog_id, []).append((what, payload))
                return
        self._deliver_to(dialog, what, payload)

    def _deliver_to(self, dialog: Dialog, what: str, payload: Any) -> None:
        if what == "event":
            dialog._push(payload)
            if payload.is_final:
                with self._lock:
                    self._presentations.pop(dialog.id, None)
        elif what == "snapshot":
            request_id_future, params = payload
            request_id_future.set_result(dialog)

    def _show(self, params: Dict[str, Any]) -> None:
        presentation = Presentation(self, params)
        with self._lock:
            handler = self._present_handler
            self._presentations[presentation.dialog_id] = presentation
        if handler is None:
            return
        threading.Thread(target=handler, args=(presentation,), name=f"wharf-present-{presentation.dialog_id}",
                         daemon=True).start()

    def _serve(self, method: str, params: Any) -> Any:
        """Server→client requests (dispatcher thread)."""
        if method != "exporter/snapshot":
            raise RequestError(method, -32601, f"this client does not handle {method}")
        dialog_id = params.get("dialogId")
        waiter: Future = Future()
        self._deliver(dialog_id, "snapshot", (waiter, params))
        dialog = waiter.result(self.timeout)
        provider = dialog._snapshot_provider(params.get("documentIndex", -1))
        if provider is None:
            raise RequestError(method, -32602, f"document {params.get('documentIndex')} of {dialog_id} has no snapshot function")
        return contents_json(provider(params.get("contentType")))

    def _closed(self, error: ConnectionLost) -> None:
        message = str(error)
        with self._lock:
            dialogs = list(self._dialogs.values())
            presentations, self._presentations = list(self._presentations.values()), {}
        for dialog in dialogs:
            dialog._push(DialogEvent("disconnected", {"dialogId": dialog.id, "message": message}))
        for presentation in presentations:
            presentation.hidden.set()

    def _describe_end(self) -> str:
        """Why the input ended, for the errors of everything still waiting (reader thread)."""
        status = None
        if self.process is not None:
            # Output ends a moment before the process does; its status makes the better story.
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = self.process.wait(1)
        what = f"wharf exited with status {status}" if status is not None else "the server closed the connection"
        tail = self.stderr_tail.strip()
        return what + (f"; its last words: {tail[-500:]}" if tail else "")

    def _collect_stderr(self, stream: BinaryIO) -> None:
        for line in iter(stream.readline, b""):
            with self._lock:
                self._stderr.append(line.decode("utf-8", "replace"))


def _importer_params(allowed_content_types: Sequence[str], multiple: bool, presentation_id: Optional[str],
                     options: Optional[DialogOptions], option_fields: Dict[str, Any]) -> Dict[str, Any]:
    """`presentImporter` params; shared by the sync and asyncio APIs."""
    params: Dict[str, Any] = {"allowedContentTypes": list(allowed_content_types), "allowsMultipleSelection": multiple}
    if presentation_id is not None:
        params["presentationId"] = presentation_id
    merged = _options(options, option_fields)
    if merged:
        params["options"] = merged
    return params


def _exporter_params(documents: Sequence[ExportDocument], content_type: Optional[str],
                     content_types: Optional[Sequence[str]], default_filename: Optional[str],
                     presentation_id: Optional[str], options: Optional[DialogOptions],
                     option_fields: Dict[str, Any]) -> Dict[str, Any]:
    """`presentExporter` params; shared by the sync and asyncio APIs."""
    params: Dict[str, Any] = {"documents": [document.to_json() for document in documents]}
    if content_type is not None:
        params["contentType"] = content_type
    if content_types is not None:
        params["contentTypes"] = list(content_types)
    if default_filename is not None:
        params["defaultFilename"] = default_filename
    if presentation_id is not None:
        params["presentationId"] = presentation_id
    merged = _options(options, option_fields)
    if merged:
        params["options"] = merged
    return params


def _options(options: Optional[DialogOptions], fields: Dict[str, Any]) -> Dict[str, Any]:
    merged = options.to_json() if options is not None else {}
    if fields:
        merged.update(DialogOptions(**fields).to_json())
    return merged


def _item_error(method: str, item: Dict[str, Any]) -> RequestError:
    error = item["error"]
    return RequestError(method, error.get("code", 0), error.get("message", ""), error.get("data"))
