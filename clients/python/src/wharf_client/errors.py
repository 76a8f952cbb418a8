"""Exceptions. Every one says what happened in words a person can act on."""
from __future__ import annotations

from typing import Any, Optional

#: Error codes of the protocol, by number (protocol/wharf.schema.json, "errors").
ERROR_NAMES = {
    -32700: "parseError",
    -32600: "invalidRequest",
    -32601: "methodNotFound",
    -32602: "invalidParams",
    -32603: "internalError",
    -32002: "serverNotInitialized",
    -32800: "requestCancelled",
    -32010: "noPresenter",
    -32011: "alreadyPresented",
    -32012: "tooManyDialogs",
    -32013: "dialogNotFound",
    -32014: "dialogEnded",
    -32015: "choiceRejected",
    -32016: "fileExists",
    -32017: "notPresenter",
    -32018: "presenterRefused",
    -32019: "presenterBacklog",
    -32020: "accessDenied",
    -32021: "bookmarkInvalid",
    -32022: "accessNotFound",
    -32030: "fileOperationFailed",
    -32031: "nameConflict",
    -32040: "presenterFailed",
    -32041: "snapshotFailed",
    -32050: "tooManyClients",
}


class WharfError(Exception):
    """Base of every error this package raises."""


class RequestError(WharfError):
    """The server answered a request with an error object."""

    def __init__(self, method: str, code: int, message: str, data: Any = None) -> None:
        #: The request that failed (``exporter/snapshot`` for an answer this client gives).
        self.method = method
        self.code = code
        self.message = message
        self.data = data
        super().__init__(f"{method} failed with {code} ({self.name}): {message}")

    @property
    def name(self) -> str:
        """The code's name in the protocol's error table (``accessDenied``), or ``"unknown"``."""
        return ERROR_NAMES.get(self.code, "unknown")


class WharfTimeout(WharfError, TimeoutError):
    """A wait ran out of time: a request got no answer, or a dialog did not end, within the
    timeout given (every wait takes one). Also a :class:`TimeoutError`."""


class ConnectionLost(WharfError):
    """The server went away (exited, crashed, or closed its output) while something waited on it.

    Every pending request and every dialog that had not ended fails with this error.
    """


class DialogCancelled(WharfError):
    """The dialog ended without a choice: ``reason`` is ``user`` (the human dismissed it),
    ``client`` (the app cancelled it), ``timeout`` or ``disconnected``.

    This is SwiftUI's ``onCancellation``; it is an exception, not a ``None`` result, so that a
    cancelled dialog can never be mistaken for an empty choice.
    """

    def __init__(self, dialog_id: str, reason: str) -> None:
        self.dialog_id = dialog_id
        self.reason = reason
        super().__init__(f"dialog {dialog_id} was cancelled ({reason})")


class DialogFailed(WharfError):
    """The dialog ended with the failure side of SwiftUI's ``Result``: the file could not be
    read or written, the presenter failed, or the exporter's snapshot failed."""

    def __init__(self, dialog_id: str, code: int, message: str, url: Optional[str] = None) -> None:
        self.dialog_id = dialog_id
        self.code = code
        self.message = message
        self.url = url
        super().__init__(f"dialog {dialog_id} failed with {code} ({ERROR_NAMES.get(code, 'unknown')}): {message}")
