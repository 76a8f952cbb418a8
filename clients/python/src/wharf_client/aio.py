"""The asyncio client: the same API as :class:`wharf_client.WharfClient`, every wait an
``await``, over asyncio subprocess streams, on the running event loop alone (no threads).

It is a thin driver around :mod:`wharf_client.core`, like the synchronous client: one task
reads the server's output and feeds the core; answers settle futures; dialog events wake the
dialog's waiters. Snapshot providers and presenter handlers may be plain functions or
coroutine functions; each runs as a task of its own.
"""
from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
from collections import deque
from typing import (Any, AsyncIterator, Awaitable, Callable, Deque, Dict, List, Optional, Sequence, Set, Tuple,
                    TypeVar, Union)

from . import calls
from .calls import Call
from .client import DEFAULT_TIMEOUT, TrafficListener, _as_message, find_wharf
from .core import (NO_HANDLER_MESSAGE, DialogEvent, DialogRecord, Notification, OutputTail, PresentationFields,
                   ProtocolCore, Response, Router, ServerRequest, call_listener, failure_message, outcome_urls,
                   release_failed, snapshot_params)
from .errors import ConnectionLost, RequestError, WharfError, WharfTimeout
from .framing import LSP, FramingError
from .paths import url_to_path
from .types import (AccessList, DialogFilters, DialogOptions, DirectoryEntry, DirectoryListing, ExportDocument,
                    Identification, InitializeResult, Lease, TypeDescription)

T = TypeVar("T")
JSON = Any

AsyncPresentHandler = Callable[["AsyncPresentation"], Union[Awaitable[None], None]]


class _Outgoing:
    """A message waiting in the outbox: ``make()`` numbers and encodes it when it is written,
    ``future`` is a request's, settled with ConnectionLost if it is never written."""

    def __init__(self, what: str, make: Callable[[], Tuple[bytes, Dict[str, JSON]]],
                 future: "Optional[asyncio.Future[JSON]]" = None) -> None:
        self.what = what
        self.make = make
        self.future = future
        self.request_id: Optional[int] = None  # once written, if a request


async def _within(awaitable: Awaitable[T], timeout: Optional[float], what: str) -> T:
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except asyncio.TimeoutError:
        raise WharfTimeout(f"{what} within {timeout} s") from None


class AsyncDialog:
    """A presented dialog, awaited: ``await dialog.result(timeout)``,
    ``async for event in dialog.events()`` (see :class:`wharf_client.Dialog`)."""

    def __init__(self, client: "AsyncWharfClient", record: DialogRecord) -> None:
        self._client = client
        self._record = record
        self.id = record.id
        self.kind = record.kind
        self._changed = asyncio.Event()
        record.on_event = self._wake

    def __repr__(self) -> str:
        return f"<AsyncDialog {self.id} {self.kind}{' ended' if self.done() else ''}>"

    def _wake(self, _event: DialogEvent) -> None:
        self._changed.set()

    def done(self) -> bool:
        return self._record.done

    async def _until(self, count: int) -> None:
        while self._record.received < count:
            self._changed.clear()
            await self._changed.wait()

    async def final_event(self, timeout: Optional[float] = None) -> DialogEvent:
        """Waits for the final event (raises WharfTimeout if ``timeout`` seconds pass first)."""
        async def final() -> DialogEvent:
            while not self._record.done:
                self._changed.clear()
                await self._changed.wait()
            return self._record.events[-1]
        return await _within(final(), timeout, f"dialog {self.id} has not ended")

    async def result(self, timeout: Optional[float] = None) -> List[str]:
        """The URLs; raises DialogCancelled, DialogFailed, ConnectionLost or WharfTimeout as the
        sync API does."""
        return outcome_urls(self.id, await self.final_event(timeout))

    @property
    def content_types(self) -> Optional[List[str]]:
        return self._record.content_types

    async def events(self, timeout: Optional[float] = None) -> AsyncIterator[DialogEvent]:
        """Every event from the first, until (and including) the final one; ``timeout``
        bounds each wait. Only the last EVENTS_KEPT before the final one are kept: an iterator
        further behind skips to the oldest kept (``on_notification`` hears every one)."""
        index = 0
        while True:
            await _within(self._until(index + 1), timeout, f"no event from dialog {self.id}")
            index, event = self._record.event_from(index)
            index += 1
            yield event
            if event.is_final:
                return

    async def cancel(self, timeout: Optional[float] = None) -> bool:
        """Ends the dialog from the app side (reason ``client``). False if it had already ended."""
        return await self._client._call(calls.cancel(self.id), timeout)


class AsyncPresentation(PresentationFields):
    """The frontend role, awaited (see :class:`wharf_client.Presentation`); ``hidden`` is an
    :class:`asyncio.Event`."""

    def __init__(self, client: "AsyncWharfClient", params: Dict[str, JSON]) -> None:
        super().__init__(params)
        self._client = client
        self.hidden = asyncio.Event()

    async def list(self, directory: Optional[str] = None, cursor: Optional[str] = None,
                   limit: Optional[int] = None, timeout: Optional[float] = None,
                   show_hidden: Optional[bool] = None) -> DirectoryListing:
        return await self._client._call(
            calls.list_directory(self.dialog_id, directory, cursor, limit, show_hidden), timeout)

    async def entries(self, directory: Optional[str] = None, page_size: Optional[int] = None,
                      timeout: Optional[float] = None,
                      show_hidden: Optional[bool] = None) -> AsyncIterator[DirectoryEntry]:
        """Every entry of ``directory``, page after page."""
        cursor = None
        while True:
            page = await self.list(directory, cursor, page_size, timeout, None if cursor else show_hidden)
            for entry in page.entries:
                yield entry
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def choose(self, urls: Sequence[str], timeout: Optional[float] = None) -> None:
        await self._client._call(calls.choose(self.dialog_id, urls), timeout)

    async def save(self, url: str, content_type: Optional[str] = None, overwrite: bool = False,
                   timeout: Optional[float] = None) -> None:
        await self._client._call(calls.save(self.dialog_id, url, content_type, overwrite), timeout)

    async def move(self, folder: str, conflict_resolution: Optional[str] = None,
                   timeout: Optional[float] = None) -> None:
        await self._client._call(calls.move(self.dialog_id, folder, conflict_resolution), timeout)

    async def dismiss(self, timeout: Optional[float] = None) -> None:
        await self._client._call(calls.dismiss(self.dialog_id), timeout)

    async def fail(self, message: str, timeout: Optional[float] = None) -> None:
        await self._client._call(calls.fail(self.dialog_id, message), timeout)


class AsyncWharfClient:
    """``async with await AsyncWharfClient.spawn(...) as client:`` — the asyncio twin of
    :class:`wharf_client.WharfClient`, with the same methods."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, framing: str = LSP,
                 process: Optional[asyncio.subprocess.Process] = None, timeout: float = DEFAULT_TIMEOUT,
                 traffic: Optional[TrafficListener] = None) -> None:
        self.process = process
        self.timeout = timeout
        self.initialize_result: Optional[InitializeResult] = None
        self._reader = reader
        self._writer = writer
        self._core = ProtocolCore(framing)
        self._router = Router()
        self._futures: Dict[int, "asyncio.Future[JSON]"] = {}
        self._hooks: Dict[int, Callable[[JSON], None]] = {}
        self._dialogs: Dict[str, AsyncDialog] = {}
        self._presentations: Dict[str, AsyncPresentation] = {}
        self._present_handler: Optional[AsyncPresentHandler] = None
        self._listeners: List[Callable[[str, JSON], None]] = []
        self._traffic = traffic
        self._stderr = OutputTail()
        # What waits for the transport's buffer to drain, in order, not yet encoded. Writing
        # whatever was sent, as _send did, had the transport hold all of it for a wharf that
        # reads nothing (wedged, stopped): 40 requests of 256 KiB put 10 MiB there. Now the
        # buffer holds at most its high-water mark and one message; the rest waits here, made
        # (numbered, encoded) only when it is written, and a request that times out before is
        # taken out unsent.
        self._outbox: Deque[_Outgoing] = deque()
        self._flusher: "Optional[asyncio.Task[None]]" = None
        self._tasks: Set["asyncio.Task[Any]"] = set()
        self._stderr_task: Optional["asyncio.Task[None]"] = None
        if process is not None and process.stderr is not None:
            self._stderr_task = asyncio.ensure_future(self._collect_stderr(process.stderr))
        self._read_task = asyncio.ensure_future(self._read_loop())

    # Making one

    @classmethod
    async def spawn(cls, wharf: Optional[str] = None, args: Sequence[str] = (), *, app: str = "python",
                    presents_dialogs: bool = False, prefers_desktop_dialogs: bool = False,
                    on_present: Optional[AsyncPresentHandler] = None, framing: str = LSP,
                    env: Optional[Dict[str, str]] = None, initialize: bool = True, timeout: float = DEFAULT_TIMEOUT,
                    traffic: Optional[TrafficListener] = None) -> "AsyncWharfClient":
        """Starts ``wharf`` (see :func:`wharf_client.find_wharf`) and initializes the session,
        as :meth:`wharf_client.WharfClient.spawn` does."""
        command = [find_wharf(wharf), *args]
        if framing != LSP:
            command += ["--framing", framing]
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=None if env is None else {**os.environ, **env}, limit=1 << 20)
        assert process.stdout is not None and process.stdin is not None
        client = cls(process.stdout, process.stdin, framing, process=process, timeout=timeout, traffic=traffic)
        if on_present is not None:
            client.on_present(on_present)
        if initialize:
            try:
                await client.initialize(app=app, presents_dialogs=presents_dialogs,
                                        prefers_desktop_dialogs=prefers_desktop_dialogs)
            except BaseException:
                await client.kill()
                raise
        return client

    @classmethod
    def attach(cls, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, framing: str = LSP,
               timeout: float = DEFAULT_TIMEOUT) -> "AsyncWharfClient":
        """A client of whatever serves on ``reader``/``writer``; await :meth:`initialize` next."""
        return cls(reader, writer, framing, timeout=timeout)

    async def __aenter__(self) -> "AsyncWharfClient":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # The wire

    async def request(self, method: str, params: JSON = None, timeout: Optional[float] = None) -> JSON:
        """Sends a request and awaits its result; raises RequestError, ConnectionLost or
        WharfTimeout."""
        return await self._call(Call(method, params, lambda result: result), timeout)

    def notify(self, method: str, params: JSON = None) -> None:
        """Sends a notification, after everything sent before it (see _outbox); it never waits."""
        if self._core.closed is not None:
            raise ConnectionLost(f"{method} cannot be sent: {self._core.closed}")

        def make() -> Tuple[bytes, Dict[str, JSON]]:
            message = {"jsonrpc": "2.0", "method": method, **({} if params is None else {"params": params})}
            return self._core.notify(method, params), message
        self._send(_Outgoing(method, make))

    def on_traffic(self, listener: Optional[TrafficListener]) -> None:
        """Calls ``listener("send" | "receive", message)`` for every message, in order. What the
        listener raises is logged (logger ``wharf_client``) and goes no further."""
        self._traffic = listener

    def on_notification(self, listener: Callable[[str, JSON], None]) -> Callable[[], None]:
        """Calls ``listener(method, params)`` for every notification, in order. What it raises
        is logged (logger ``wharf_client``) and ends nothing. Returns a function that removes
        the listener."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
        return remove

    async def _call(self, call: Call[T], timeout: Optional[float] = None,
                    hook: Optional[Callable[[JSON], None]] = None) -> T:
        outgoing = self._start(call.method, call.params, hook)
        future = outgoing.future
        assert future is not None
        wait = self.timeout if timeout is None else timeout
        try:
            result = await asyncio.wait_for(asyncio.shield(future), wait)
        except asyncio.TimeoutError:
            if not self._give_up(outgoing):  # answered (or the connection ended) just now
                return call.read(await future)
            raise WharfTimeout(f"{call.method} got no answer within {wait} s") from None
        except asyncio.CancelledError:
            # The caller stopped waiting (its task was cancelled): the request is forgotten and
            # cancelled as a timed-out one is, so nothing is left pending and a present's dialog
            # does not stay open with nobody to see it end.
            self._give_up(outgoing)
            raise
        return call.read(result)

    def _give_up(self, outgoing: _Outgoing) -> bool:
        """Stops waiting for a request: taken out of the outbox if it is still there (the server
        never saw it), else forgotten and the server told; False if it was answered (or the
        connection ended) meanwhile, and its future is settled."""
        if outgoing in self._outbox:
            self._outbox.remove(outgoing)
            return True
        request_id = outgoing.request_id
        if request_id is None or not self._core.expire(request_id):
            return False
        self._futures.pop(request_id, None)
        self._hooks.pop(request_id, None)
        with contextlib.suppress(ConnectionLost):
            self.notify("$/cancelRequest", {"id": request_id})
        return True

    def _start(self, method: str, params: JSON, hook: Optional[Callable[[JSON], None]] = None) -> _Outgoing:
        """The request, sent (or waiting in the outbox); its future holds the answer, or why it
        could not be sent."""
        future: "asyncio.Future[JSON]" = asyncio.get_running_loop().create_future()

        def make() -> Tuple[bytes, Dict[str, JSON]]:
            request_id, frame = self._core.request(method, params)
            outgoing.request_id = request_id
            self._futures[request_id] = future
            if hook is not None:
                self._hooks[request_id] = hook
            message: Dict[str, JSON] = {"jsonrpc": "2.0", "id": request_id, "method": method}
            if params is not None:
                message["params"] = params
            return frame, message
        outgoing = _Outgoing(method, make, future)
        try:
            self._send(outgoing)
        except ConnectionLost as error:
            future.set_exception(error)
        return outgoing

    def _send(self, outgoing: _Outgoing) -> None:
        """Sends ``outgoing`` after everything sent before it: now if the transport's buffer is
        under its high-water mark, else once it has drained (see _outbox)."""
        if self._writer.is_closing():
            raise ConnectionLost(f"cannot send {outgoing.what}: the pipe to wharf is closed")
        self._outbox.append(outgoing)
        self._flush()

    def _flush(self) -> None:
        """Writes from the outbox while the transport has room; if some is left, a task writes
        it as the transport drains."""
        transport = self._writer.transport
        while self._outbox and transport.get_write_buffer_size() <= transport.get_write_buffer_limits()[1]:
            self._write(self._outbox.popleft())
        if self._outbox and self._flusher is None:
            self._flusher = asyncio.ensure_future(self._flush_as_drained())

    async def _flush_as_drained(self) -> None:
        # One task awaits the drain (Python before 3.10 allows a single waiter on drain()).
        try:
            while self._outbox:
                await self._writer.drain()  # until the buffer is under its low-water mark
                self._flush()
        except (OSError, ConnectionError):
            pass  # the pipe is gone: the read loop ends, and _finish drops the outbox
        finally:
            if self._flusher is asyncio.current_task():
                self._flusher = None

    async def _written(self) -> None:
        """Returns once what waits in the outbox is written and the transport has drained."""
        while self._flusher is not None:
            await asyncio.wait([self._flusher])  # without raising if it was cancelled
        await self._writer.drain()

    def _write(self, outgoing: _Outgoing) -> None:
        try:
            frame, message = outgoing.make()
        except ConnectionLost as error:  # the connection ended while it waited
            if outgoing.future is not None and not outgoing.future.done():
                outgoing.future.set_exception(error)
            return
        if self._traffic is not None:
            call_listener(self._traffic, "send", message)
        self._writer.write(frame)  # the transport takes it, and writes it as the pipe does

    def _drop_outbox(self, error: ConnectionLost) -> None:
        """Nothing more will be written: what waits in the outbox is dropped, its requests failed."""
        outbox, self._outbox = self._outbox, deque()
        for outgoing in outbox:
            if outgoing.future is not None and not outgoing.future.done():
                outgoing.future.set_exception(error)
        flusher, self._flusher = self._flusher, None
        if flusher is not None:
            flusher.cancel()

    # Lifecycle

    async def initialize(self, app: str = "python", presents_dialogs: bool = False,
                         prefers_desktop_dialogs: bool = False, trace: Optional[str] = None,
                         version: Optional[str] = None, timeout: Optional[float] = None) -> InitializeResult:
        self.initialize_result = await self._call(calls.initialize(app, presents_dialogs, prefers_desktop_dialogs,
                                                                   trace, version), timeout)
        self.notify("initialized", {})
        return self.initialize_result

    async def ping(self, timeout: Optional[float] = None) -> None:
        await self._call(calls.ping(), timeout)

    async def shutdown(self, timeout: Optional[float] = None) -> None:
        await self._call(calls.shutdown(), timeout)

    def exit(self) -> None:
        self.notify("exit")

    async def close(self, timeout: float = 10.0) -> Optional[int]:
        """Shuts down politely (``shutdown``, ``exit``) if the server is still there, then waits
        for it; the exit status of a spawned server. ``timeout`` bounds the whole close: a
        spawned server that has not exited within it is killed."""
        # One deadline for every stage (see WharfClient.close).
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout

        def left() -> float:
            return max(0.0, deadline - loop.time())
        if self._core.closed is None:
            with contextlib.suppress(WharfError):
                await self.shutdown(left())
                self.exit()
        # What is still to be written goes first (the exit, say). A server that does not read
        # (wedged, stopped) never takes it: the wait is bounded too, what is left is dropped,
        # and the process killed below if it does not exit.
        if not self._writer.is_closing():
            with contextlib.suppress(OSError, ConnectionError, asyncio.TimeoutError):
                await asyncio.wait_for(self._written(), left())
        self._drop_outbox(ConnectionLost("the client closed wharf's input before it was sent"))
        with contextlib.suppress(OSError, ConnectionError):
            self._writer.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._read_task), left())
        if self.process is None:
            return None
        try:
            return await asyncio.wait_for(self.process.wait(), left())
        except asyncio.TimeoutError:
            return await self.kill()

    async def kill(self) -> Optional[int]:
        """Kills a spawned server at once."""
        if self.process is None:
            return None
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        return await self.process.wait()

    @property
    def stderr_tail(self) -> str:
        return self._stderr.text

    # Content types

    async def describe_types(self, identifiers: Sequence[str],
                             timeout: Optional[float] = None) -> List[Union[TypeDescription, RequestError]]:
        return await self._call(calls.describe_types(identifiers), timeout)

    async def identify(self, paths: Sequence[str], sniff: bool = True,
                       timeout: Optional[float] = None) -> List[Union[Identification, RequestError]]:
        return await self._call(calls.identify(paths, sniff), timeout)

    async def conforms(self, identifier: str, to: str, timeout: Optional[float] = None) -> bool:
        return await self._call(calls.conforms(identifier, to), timeout)

    async def type_for_extension(self, extension: str, conforming_to: Optional[str] = None,
                                 timeout: Optional[float] = None) -> Optional[str]:
        return await self._call(calls.type_for_extension(extension, conforming_to), timeout)

    async def type_for_mime_type(self, mime_type: str, conforming_to: Optional[str] = None,
                                 timeout: Optional[float] = None) -> Optional[str]:
        return await self._call(calls.type_for_mime_type(mime_type, conforming_to), timeout)

    async def declare_types(self, types: Sequence[Dict[str, JSON]], timeout: Optional[float] = None) -> List[str]:
        return await self._call(calls.declare_types(types), timeout)

    async def filters(self, identifiers: Sequence[str], timeout: Optional[float] = None) -> DialogFilters:
        return await self._call(calls.filters(identifiers), timeout)

    # Dialogs

    async def present_importer(self, allowed_content_types: Sequence[str], multiple: bool = False, *,
                               presentation_id: Optional[str] = None, options: Optional[DialogOptions] = None,
                               timeout: Optional[float] = None, **option_fields: Any) -> AsyncDialog:
        params = calls.importer_params(allowed_content_types, multiple, presentation_id, options, option_fields)
        return await self._present("presentImporter", params, "importer", [], timeout)

    async def present_exporter(self, documents: Sequence[ExportDocument], content_type: Optional[str] = None, *,
                               content_types: Optional[Sequence[str]] = None, default_filename: Optional[str] = None,
                               presentation_id: Optional[str] = None, options: Optional[DialogOptions] = None,
                               timeout: Optional[float] = None, **option_fields: Any) -> AsyncDialog:
        params = calls.exporter_params(documents, content_type, content_types, default_filename, presentation_id,
                                       options, option_fields)
        return await self._present("presentExporter", params, "exporter", [d.snapshot for d in documents], timeout)

    async def present_mover(self, urls: Sequence[str], *, presentation_id: Optional[str] = None,
                            options: Optional[DialogOptions] = None, timeout: Optional[float] = None,
                            **option_fields: Any) -> AsyncDialog:
        params = calls.mover_params(urls, presentation_id, options, option_fields)
        return await self._present("presentMover", params, "mover", [], timeout)

    async def _present(self, method: str, params: Dict[str, JSON], kind: str, snapshots: List[Any],
                       timeout: Optional[float]) -> AsyncDialog:
        made: List[AsyncDialog] = []

        def register(result: JSON) -> None:
            # In the reader task, before the next message is handled.
            dialog = AsyncDialog(self, self._router.register(str(result["dialogId"]), kind, snapshots))
            if not dialog.done():  # its end may have come before the answer
                self._dialogs[dialog.id] = dialog
            made.append(dialog)
        await self._call(Call(method, params, lambda result: None), timeout, hook=register)
        return made[0]

    def dialog(self, dialog_id: str) -> Optional[AsyncDialog]:
        """The open dialog ``dialog_id``; None once it has ended (see
        :meth:`wharf_client.WharfClient.dialog`)."""
        return self._dialogs.get(dialog_id)

    def on_present(self, handler: AsyncPresentHandler) -> None:
        """Frontend role: ``handler(presentation)`` (``async def`` or plain) runs as a task on
        this event loop for every dialog the server asks this client to draw. If it raises, the
        dialog ends at once with ``presenterFailed`` carrying the message (``dialog/fail``); a
        dialog shown while no handler is registered ends the same way."""
        self._present_handler = handler

    # Access

    async def resolve_access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None,
                             timeout: Optional[float] = None) -> Lease:
        return await self._call(calls.resolve_access(url, bookmark), timeout)

    async def release_access(self, access_id: str, timeout: Optional[float] = None) -> None:
        await self._call(calls.release_access(access_id), timeout)

    @contextlib.asynccontextmanager
    async def access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None,
                     timeout: Optional[float] = None) -> AsyncIterator[str]:
        """``async with client.access(url) as path:`` — resolves, yields the path made from the
        lease's ``url`` (see :meth:`wharf_client.WharfClient.access`), always releases; a
        release that fails while the block raises is logged and noted, the block's exception
        propagates (as there)."""
        lease = await self.resolve_access(url, bookmark=bookmark, timeout=timeout)
        try:
            yield url_to_path(lease.url)
        except BaseException as error:
            # The block's exception goes on; a release failing too is reported with it, not
            # instead of it (see release_failed).
            try:
                await self.release_access(lease.access_id, timeout)
            except ConnectionLost:
                pass  # the server is gone, and its leases with it
            except Exception as failure:
                release_failed(error, failure, lease.access_id)
            raise
        with contextlib.suppress(ConnectionLost):
            await self.release_access(lease.access_id, timeout)

    async def create_bookmark(self, url: str, timeout: Optional[float] = None) -> str:
        return await self._call(calls.create_bookmark(url), timeout)

    async def list_access(self, timeout: Optional[float] = None) -> AccessList:
        return await self._call(calls.list_access(), timeout)

    async def revoke_access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None,
                            timeout: Optional[float] = None) -> int:
        return await self._call(calls.revoke_access(url, bookmark), timeout)

    async def read_file(self, access_id: str, offset: int = 0, length: Optional[int] = None,
                        timeout: Optional[float] = None) -> Tuple[bytes, bool]:
        return await self._call(calls.read_file(access_id, offset, length), timeout)

    async def write_file(self, access_id: str, data: bytes, offset: int = 0, truncate: bool = False,
                         timeout: Optional[float] = None) -> int:
        return await self._call(calls.write_file(access_id, data, offset, truncate), timeout)

    # Reading (one task)

    async def _read_loop(self) -> None:
        reason: Optional[str] = None
        try:
            while True:
                data = await self._reader.read(65536)
                if not data:
                    self._core.end_of_input()
                    break
                for item in self._core.receive(data):
                    self._handle(item)
        except (FramingError, ValueError) as error:
            reason = f"the server sent something unreadable: {error}"
        except (OSError, ConnectionError) as error:
            reason = f"reading from the server failed: {error}"
        finally:
            await self._finish(reason)

    def _spawn_task(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _handle(self, item: Union[Response, Notification, ServerRequest]) -> None:
        if self._traffic is not None:
            call_listener(self._traffic, "receive", _as_message(item))
        if isinstance(item, Response):
            if item.late:
                self._abandon(item.late_dialog)
                return
            future = self._futures.pop(item.id, None)
            hook = self._hooks.pop(item.id, None)
            if future is None or future.done():
                return
            if item.error is not None:
                future.set_exception(item.error)
                return
            if hook is not None:
                try:
                    hook(item.result)
                except Exception as failure:
                    future.set_exception(failure)
                    return
            future.set_result(item.result)
        elif isinstance(item, Notification):
            self._route(item.method, item.params)
        else:
            self._spawn_task(self._serve(item))

    def _abandon(self, dialog_id: Optional[str]) -> None:
        """A present that timed out was answered after all, with a dialog nobody waits for:
        it is cancelled (in a task of its own, errors ignored) and its events dropped."""
        if dialog_id is None:
            return
        self._router.abandon(dialog_id)

        async def cancel() -> None:
            with contextlib.suppress(WharfError):
                await self._call(calls.cancel(dialog_id))
        self._spawn_task(cancel())

    def _route(self, method: str, params: JSON) -> None:
        for listener in list(self._listeners):
            call_listener(listener, method, params)
        routed = self._router.route(method, params)
        if routed is None:
            return
        if routed.what == "event" and routed.event is not None and routed.event.is_final:
            self._presentations.pop(routed.dialog_id, None)  # ended: forgotten (see Router)
            self._dialogs.pop(routed.dialog_id, None)
        elif routed.what == "show":
            presentation = AsyncPresentation(self, routed.params)
            self._presentations[presentation.dialog_id] = presentation
            self._spawn_task(self._draw(presentation))
        elif routed.what == "hide":
            hidden = self._presentations.pop(routed.dialog_id, None)
            if hidden is not None:
                hidden.hidden.set()

    async def _draw(self, presentation: AsyncPresentation) -> None:
        handler = self._present_handler
        if handler is None:
            message = NO_HANDLER_MESSAGE
        else:
            try:
                outcome = handler(presentation)
                if inspect.isawaitable(outcome):
                    await outcome
                return
            except Exception as error:
                message = failure_message(error)
        with contextlib.suppress(RequestError, ConnectionLost, WharfTimeout):
            await presentation.fail(message)

    async def _serve(self, request: ServerRequest) -> None:
        try:
            result = await self._answer(request)
            frame = self._core.respond(request.id, result)
            message: Dict[str, JSON] = {"jsonrpc": "2.0", "id": request.id, "result": result}
        except Exception as failure:
            error: Dict[str, JSON] = ({"code": failure.code, "message": failure.message}
                                      if isinstance(failure, RequestError)
                                      else {"code": -32603, "message": failure_message(failure)})
            frame = self._core.respond(request.id, error=error)
            message = {"jsonrpc": "2.0", "id": request.id, "error": error}
        with contextlib.suppress(ConnectionLost):
            self._send(_Outgoing("a response", lambda: (frame, message)))

    async def _answer(self, request: ServerRequest) -> JSON:
        params = snapshot_params(request)
        record = self._router.dialogs.get(str(params.get("dialogId")))
        provider = record.snapshot_provider(params.get("documentIndex")) if record is not None else None
        if provider is None:
            raise RequestError(request.method, -32602, f"document {params.get('documentIndex')} of "
                                                       f"{params.get('dialogId')} has no snapshot function")
        value = provider(str(params.get("contentType")))
        if inspect.isawaitable(value):
            value = await value
        return calls.snapshot_result(value)

    async def _finish(self, reason: Optional[str]) -> None:
        error = ConnectionLost(reason or await self._describe_end())
        self._core.close(error)
        self._drop_outbox(ConnectionLost(f"no answer came: {error}"))
        futures, self._futures = self._futures, {}
        self._hooks.clear()
        presentations, self._presentations = list(self._presentations.values()), {}
        self._router.disconnect(str(error))
        self._dialogs.clear()
        for future in futures.values():
            if not future.done():
                future.set_exception(ConnectionLost(f"no answer came: {error}"))
        for presentation in presentations:
            presentation.hidden.set()

    async def _describe_end(self) -> str:
        status = None
        if self.process is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                status = await asyncio.wait_for(self.process.wait(), 1)
        if self._stderr_task is not None:
            await asyncio.wait([self._stderr_task], timeout=1)  # neither raises nor cancels it
        what = f"wharf exited with status {status}" if status is not None else "the server closed the connection"
        tail = self.stderr_tail.strip()
        return what + (f"; its last words: {tail[-500:]}" if tail else "")

    async def _collect_stderr(self, stream: asyncio.StreamReader) -> None:
        """Reads standard error to its end, so the server never blocks writing there (see
        :class:`OutputTail`); if reading fails, the tail is what was read."""
        with contextlib.suppress(OSError):
            while True:
                data = await stream.read(65536)
                if not data:
                    return
                self._stderr.feed(data)
