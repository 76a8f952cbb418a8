"""Dialogs as objects: what the server streams about one dialog, and how it ended."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional

from .errors import ConnectionLost, DialogCancelled, DialogFailed
from .types import DialogFilters, DirectoryEntry, DirectoryListing

if TYPE_CHECKING:
    from .client import WharfClient


@dataclass(frozen=True)
class DialogEvent:
    """One thing the server said about a dialog, in the order it said it.

    ``kind`` is the notification's name without ``dialog/`` (``presentationChanged``,
    ``progress``, ``completed``, ``cancelled``) or ``disconnected`` when the server went away.
    ``params`` holds the notification's params as sent.
    """
    kind: str
    params: Dict[str, Any] = field(default_factory=dict)

    @property
    def is_final(self) -> bool:
        return self.kind in ("completed", "cancelled", "disconnected")


class Dialog:
    """A presented importer or exporter.

    ``result()`` waits for the end and returns the URLs (file: URLs; for the importer the
    human's picks, for the exporter the files written). It raises :class:`DialogCancelled` when
    the dialog was cancelled (SwiftUI's ``onCancellation``), :class:`DialogFailed` for the
    failure side of the ``Result``, and :class:`ConnectionLost` if the server went away first.
    ``events()`` iterates over everything the server streams about the dialog, ending with the
    final event.
    """

    def __init__(self, client: "WharfClient", dialog_id: str, kind: str,
                 snapshots: Optional[List[Optional[Callable[[str], Any]]]] = None) -> None:
        self._client = client
        self.id = dialog_id
        self.kind = kind
        self._snapshots = snapshots or []
        self._events: List[DialogEvent] = []
        self._changed = threading.Condition()
        self._listeners: List[Callable[[DialogEvent], None]] = []

    def __repr__(self) -> str:
        return f"<Dialog {self.id} {self.kind}{' ended' if self.done() else ''}>"

    # Fed by the client's reader thread, in the server's order.

    def _push(self, event: DialogEvent) -> None:
        with self._changed:
            if self._events and self._events[-1].is_final:
                return  # exactly once: nothing after the end (a late disconnect, say)
            self._events.append(event)
            listeners = list(self._listeners)
            self._changed.notify_all()
        for listener in listeners:
            listener(event)

    def _add_listener(self, listener: Callable[[DialogEvent], None]) -> List[DialogEvent]:
        """Registers ``listener`` for later events; returns the events so far (atomically)."""
        with self._changed:
            self._listeners.append(listener)
            return list(self._events)

    def _remove_listener(self, listener: Callable[[DialogEvent], None]) -> None:
        with self._changed:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def _snapshot_provider(self, index: int) -> Optional[Callable[[str], Any]]:
        return self._snapshots[index] if 0 <= index < len(self._snapshots) else None

    # Asking

    def done(self) -> bool:
        with self._changed:
            return bool(self._events) and self._events[-1].is_final

    def final_event(self, timeout: Optional[float] = None) -> DialogEvent:
        """Waits for the final event and returns it (raises TimeoutError if ``timeout`` passes)."""
        with self._changed:
            if not self._changed.wait_for(lambda: bool(self._events) and self._events[-1].is_final, timeout):
                raise TimeoutError(f"dialog {self.id} has not ended after {timeout} s")
            return self._events[-1]

    def result(self, timeout: Optional[float] = None) -> List[str]:
        """The URLs the dialog ended with; raises as described in the class documentation."""
        return outcome_urls(self.id, self.final_event(timeout))

    @property
    def content_types(self) -> Optional[List[str]]:
        """For a completed exporter: the content type each document was written as."""
        event = self._events[-1] if self.done() else None
        return event.params.get("contentTypes") if event and event.kind == "completed" else None

    def events(self, timeout: Optional[float] = None) -> Iterator[DialogEvent]:
        """Every event of this dialog from the first, waiting for new ones, until the final
        one (which is yielded too). ``timeout`` bounds each wait."""
        index = 0
        while True:
            with self._changed:
                if not self._changed.wait_for(lambda: len(self._events) > index, timeout):
                    raise TimeoutError(f"no event from dialog {self.id} for {timeout} s")
                event = self._events[index]
            index += 1
            yield event
            if event.is_final:
                return

    def cancel(self) -> bool:
        """Ends the dialog from the app side (reason ``client``). False if it had already ended."""
        return bool(self._client.request("cancel", {"dialogId": self.id})["cancelled"])


def outcome_urls(dialog_id: str, event: DialogEvent) -> List[str]:
    """What ``result()`` returns or raises for a final event."""
    if event.kind == "completed":
        error = event.params.get("error")
        if error is not None:
            raise DialogFailed(dialog_id, error.get("code", 0), error.get("message", ""), error.get("url"))
        return list(event.params.get("urls", []))
    if event.kind == "cancelled":
        raise DialogCancelled(dialog_id, event.params.get("reason", "unknown"))
    raise ConnectionLost(f"dialog {dialog_id} never ended: {event.params.get('message', 'the server went away')}")


class Presentation:
    """The frontend role: one dialog the server asks this client to draw (``presenter/show``).

    Browse with :meth:`list` / :meth:`entries`, then answer with :meth:`choose` (importer),
    :meth:`save` (exporter) or :meth:`dismiss`. :attr:`hidden` is set when the app side ended
    the dialog (``presenter/hide``) or the server went away.
    """

    def __init__(self, client: "WharfClient", params: Dict[str, Any]) -> None:
        self._client = client
        self.params = params
        self.dialog_id: str = params["dialogId"]
        self.kind: str = params["kind"]
        self.title: Optional[str] = params.get("title")
        self.message: Optional[str] = params.get("message")
        self.confirmation_label: Optional[str] = params.get("confirmationLabel")
        self.allowed_content_types: List[str] = params.get("allowedContentTypes", [])
        self.allows_multiple_selection: bool = params.get("allowsMultipleSelection", False)
        self.filters = DialogFilters.from_json(params["filters"]) if "filters" in params else None
        self.directory: str = params.get("directory", "")
        self.browser_options: List[str] = params.get("browserOptions", [])
        self.filename: Optional[str] = params.get("filename")
        self.content_types: List[str] = params.get("contentTypes", [])
        self.filename_label: Optional[str] = params.get("filenameLabel")
        self.hidden = threading.Event()

    def __repr__(self) -> str:
        return f"<Presentation {self.dialog_id} {self.kind} {self.title!r}>"

    def list(self, directory: Optional[str] = None, cursor: Optional[str] = None,
             limit: Optional[int] = None) -> DirectoryListing:
        """One page of ``directory`` (default: where the dialog opened)."""
        params: Dict[str, Any] = {"dialogId": self.dialog_id}
        for key, value in (("directory", directory), ("cursor", cursor), ("limit", limit)):
            if value is not None:
                params[key] = value
        return DirectoryListing.from_json(self._client.request("dialog/list", params))

    def entries(self, directory: Optional[str] = None, page_size: Optional[int] = None) -> Iterator[DirectoryEntry]:
        """Every entry of ``directory``, page after page."""
        cursor = None
        while True:
            page = self.list(directory, cursor, page_size)
            yield from page.entries
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def choose(self, urls: List[str]) -> None:
        """The human picked ``urls`` (an importer). Raises RequestError ``choiceRejected`` if the
        dialog does not allow them; the dialog then stays open."""
        self._client.request("dialog/choose", {"dialogId": self.dialog_id, "urls": list(urls)})

    def save(self, url: str, content_type: Optional[str] = None, overwrite: bool = False) -> None:
        """The human chose where to save (an exporter); ``overwrite`` confirms replacing a file."""
        params: Dict[str, Any] = {"dialogId": self.dialog_id, "url": url}
        if content_type is not None:
            params["contentType"] = content_type
        if overwrite:
            params["overwrite"] = True
        self._client.request("dialog/choose", params)

    def dismiss(self) -> None:
        """The human closed the dialog without choosing (reason ``user``)."""
        self._client.request("dialog/dismiss", {"dialogId": self.dialog_id})

    def fail(self, message: str) -> None:
        """The presenter cannot go on (its own code failed): the dialog ends with a
        ``presenterFailed`` error carrying ``message``."""
        self._client.request("dialog/fail", {"dialogId": self.dialog_id, "message": message})
