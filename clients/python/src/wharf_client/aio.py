"""The asyncio API: the same client, with every wait an ``await``.

It wraps :class:`wharf_client.WharfClient` (one reader thread underneath) and hands results to
the event loop with ``asyncio.wrap_future`` and ``call_soon_threadsafe``: nothing blocks the
loop and nothing polls.
"""
from __future__ import annotations

import asyncio
import contextlib
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Optional, Sequence, Tuple

from .client import DEFAULT_TIMEOUT, WharfClient, _exporter_params, _importer_params
from .dialogs import Dialog, DialogEvent, Presentation, outcome_urls
from .errors import ConnectionLost
from .framing import LSP
from .types import AccessList, DialogOptions, ExportDocument, InitializeResult, Lease


class AsyncDialog:
    """A presented dialog, awaited: ``await dialog.result()``, ``async for event in dialog.events()``."""

    def __init__(self, client: "AsyncWharfClient", dialog: Dialog) -> None:
        self._client = client
        self.dialog = dialog
        self.id = dialog.id
        self.kind = dialog.kind

    def __repr__(self) -> str:
        return f"<AsyncDialog {self.id} {self.kind}>"

    async def events(self) -> AsyncIterator[DialogEvent]:
        """Every event from the first, until (and including) the final one."""
        loop = asyncio.get_running_loop()
        queue: "asyncio.Queue[DialogEvent]" = asyncio.Queue()
        def listener(event: DialogEvent) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, event)
        for event in self.dialog._add_listener(listener):
            queue.put_nowait(event)
        try:
            while True:
                event = await queue.get()
                yield event
                if event.is_final:
                    return
        finally:
            self.dialog._remove_listener(listener)

    async def final_event(self) -> DialogEvent:
        async for event in self.events():
            if event.is_final:
                return event
        raise AssertionError("unreachable: events() ends with a final event")

    async def result(self) -> List[str]:
        """The URLs; raises DialogCancelled, DialogFailed or ConnectionLost as the sync API does."""
        return outcome_urls(self.id, await self.final_event())

    async def cancel(self) -> bool:
        return bool((await self._client.request("cancel", {"dialogId": self.id}))["cancelled"])

    @property
    def content_types(self) -> Optional[List[str]]:
        return self.dialog.content_types


class AsyncPresentation:
    """The frontend role, awaited (see :class:`wharf_client.Presentation`)."""

    def __init__(self, client: "AsyncWharfClient", presentation: Presentation) -> None:
        self._client = client
        self.presentation = presentation
        self.dialog_id = presentation.dialog_id
        self.kind = presentation.kind

    def __getattr__(self, name: str) -> Any:
        return getattr(self.presentation, name)

    async def list(self, directory: Optional[str] = None, cursor: Optional[str] = None, limit: Optional[int] = None):
        return await asyncio.to_thread(self.presentation.list, directory, cursor, limit)

    async def choose(self, urls: Sequence[str]) -> None:
        await self._client.request("dialog/choose", {"dialogId": self.dialog_id, "urls": list(urls)})

    async def save(self, url: str, content_type: Optional[str] = None, overwrite: bool = False) -> None:
        params: Dict[str, Any] = {"dialogId": self.dialog_id, "url": url}
        if content_type is not None:
            params["contentType"] = content_type
        if overwrite:
            params["overwrite"] = True
        await self._client.request("dialog/choose", params)

    async def dismiss(self) -> None:
        await self._client.request("dialog/dismiss", {"dialogId": self.dialog_id})

    async def fail(self, message: str) -> None:
        await self._client.request("dialog/fail", {"dialogId": self.dialog_id, "message": message})


class AsyncWharfClient:
    """``async with await AsyncWharfClient.spawn(...) as client:`` — the asyncio twin of WharfClient."""

    def __init__(self, client: WharfClient) -> None:
        self.sync = client

    @classmethod
    async def spawn(cls, wharf: Optional[str] = None, args: Sequence[str] = (), *, app: str = "python",
                    presents_dialogs: bool = False, framing: str = LSP, env: Optional[Dict[str, str]] = None,
                    timeout: float = DEFAULT_TIMEOUT) -> "AsyncWharfClient":
        client = cls(WharfClient.spawn(wharf, args, app=app, framing=framing, env=env, initialize=False, timeout=timeout))
        try:
            await client.initialize(app=app, presents_dialogs=presents_dialogs)
        except BaseException:
            client.sync.kill()
            raise
        return client

    async def __aenter__(self) -> "AsyncWharfClient":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def request(self, method: str, params: Any = None) -> Any:
        return await asyncio.wrap_future(self.sync.request_future(method, params))

    def notify(self, method: str, params: Any = None) -> None:
        self.sync.notify(method, params)

    async def initialize(self, app: str = "python", presents_dialogs: bool = False) -> InitializeResult:
        import os
        result = await self.request("initialize", {"processId": os.getpid(), "clientInfo": {"name": app},
                                                   "capabilities": {"presentsDialogs": presents_dialogs}})
        self.sync.initialize_result = InitializeResult.from_json(result)
        self.notify("initialized", {})
        return self.sync.initialize_result

    async def ping(self) -> None:
        await self.request("ping", {})

    async def close(self) -> Optional[int]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self.sync.close)

    async def present_importer(self, allowed_content_types: Sequence[str], multiple: bool = False, *,
                               presentation_id: Optional[str] = None, options: Optional[DialogOptions] = None,
                               **option_fields: Any) -> AsyncDialog:
        params = _importer_params(allowed_content_types, multiple, presentation_id, options, option_fields)
        return await self._present("presentImporter", params, "importer", [])

    async def present_exporter(self, documents: Sequence[ExportDocument], content_type: Optional[str] = None, *,
                               content_types: Optional[Sequence[str]] = None, default_filename: Optional[str] = None,
                               presentation_id: Optional[str] = None, options: Optional[DialogOptions] = None,
                               **option_fields: Any) -> AsyncDialog:
        params = _exporter_params(documents, content_type, content_types, default_filename, presentation_id,
                                  options, option_fields)
        return await self._present("presentExporter", params, "exporter", [d.snapshot for d in documents])

    async def _present(self, method: str, params: Dict[str, Any], kind: str, snapshots: List[Any]) -> AsyncDialog:
        loop = asyncio.get_running_loop()
        dialog = await loop.run_in_executor(None, self.sync._present, method, params, kind, snapshots)
        return AsyncDialog(self, dialog)

    def on_present(self, handler: Callable[[AsyncPresentation], Awaitable[None]]) -> None:
        """Frontend role: ``async def handler(presentation)`` runs on this event loop for every
        dialog the server asks this client to draw."""
        loop = asyncio.get_running_loop()
        def bridge(presentation: Presentation) -> None:
            asyncio.run_coroutine_threadsafe(handler(AsyncPresentation(self, presentation)), loop)
        self.sync.on_present(bridge)

    async def resolve_access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None) -> Lease:
        if (url is None) == (bookmark is None):
            raise ValueError("give exactly one of url and bookmark")
        return Lease.from_json(await self.request("resolveAccess", {"url": url} if url is not None else {"bookmark": bookmark}))

    async def release_access(self, access_id: str) -> None:
        await self.request("releaseAccess", {"accessId": access_id})

    @contextlib.asynccontextmanager
    async def access(self, url: Optional[str] = None, *, bookmark: Optional[str] = None) -> AsyncIterator[str]:
        """``async with client.access(url) as path:`` — resolves, yields the path, always releases."""
        lease = await self.resolve_access(url, bookmark=bookmark)
        try:
            yield lease.path
        finally:
            with contextlib.suppress(ConnectionLost):
                await self.release_access(lease.access_id)

    async def create_bookmark(self, url: str) -> str:
        return (await self.request("createBookmark", {"url": url}))["bookmark"]

    async def list_access(self) -> AccessList:
        return AccessList.from_json(await self.request("listAccess", {}))

    async def read_file(self, access_id: str, offset: int = 0, length: Optional[int] = None) -> Tuple[bytes, bool]:
        import base64
        params: Dict[str, Any] = {"accessId": access_id, "offset": offset}
        if length is not None:
            params["length"] = length
        result = await self.request("readFile", params)
        return base64.b64decode(result["base64"]), bool(result["eof"])
