"""Typed params and results, written by hand after protocol/wharf.schema.json.

Each class that mirrors a schema object names it in ``SCHEMA`` (a JSON pointer into the schema); a test checks that the fields
(snake_case here, camelCase on the wire) and which of them are required agree with the schema.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Type, TypeVar

W = TypeVar("W", bound="WireObject")


def camel(name: str) -> str:
    """``allows_multiple_selection`` → ``allowsMultipleSelection``; ``mime_type`` → ``mimeType``."""
    special = {"mime_type": "mimeType", "mime_types": "mimeTypes", "preferred_mime_type": "preferredMIMEType",
               "file_io": "fileIO"}
    if name in special:
        return special[name]
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    """The inverse of :func:`camel`."""
    for python, wire in {"preferred_mime_type": "preferredMIMEType", "mime_types": "mimeTypes",
                         "mime_type": "mimeType", "file_io": "fileIO"}.items():
        if name == wire:
            return python
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


class WireObject:
    """A dataclass read from a JSON object of the protocol: unknown members are kept in
    ``extra`` (a newer server may say more), missing optional ones take their defaults."""

    SCHEMA = ""

    @classmethod
    def from_json(cls: Type[W], value: Dict[str, Any]) -> W:
        known = {f.name: f for f in dataclasses.fields(cls) if f.name != "extra"}  # type: ignore[arg-type]
        arguments: Dict[str, Any] = {}
        extra: Dict[str, Any] = {}
        for key, item in value.items():
            name = snake(key)
            if name in known:
                converter = known[name].metadata.get("convert")
                arguments[name] = converter(item) if converter and item is not None else item
            else:
                extra[key] = item
        instance = cls(**arguments)
        if "extra" in {f.name for f in dataclasses.fields(cls)}:  # type: ignore[arg-type]
            object.__setattr__(instance, "extra", extra)
        return instance


def _list_of(kind: Type[W]) -> Callable[[List[Dict[str, Any]]], List[W]]:
    return lambda values: [kind.from_json(v) for v in values]


@dataclass(frozen=True)
class ServerInfo(WireObject):
    """``initialize``'s ``serverInfo``: ``wharf`` and its version."""
    name: str
    version: str


@dataclass(frozen=True)
class ClientIdentity(WireObject):
    """Who the server takes a client for: over the daemon, ``app`` is established from the
    client's process (``flatpak:ID``, ``snap:NAME``, ``exe:PATH``); over standard I/O it is None."""
    SCHEMA = "#/$defs/ClientIdentity"
    app: Optional[str]
    name: str
    pid: Optional[int]
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class InitializeResult(WireObject):
    """``initialize``: who the server is and what it can do (``capabilities`` as sent)."""
    SCHEMA = "#/$defs/InitializeResult"
    server_info: ServerInfo = field(metadata={"convert": ServerInfo.from_json})
    protocol_version: str
    capabilities: Dict[str, Any]
    client: Optional[ClientIdentity] = field(default=None, metadata={"convert": ClientIdentity.from_json})
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def presenter(self) -> Optional[str]:
        """Which presenter this client's dialogs get: ``"portal"``, ``"zenity"``,
        ``"kdialog"``, ``"frontend"``, ``"script"``, ``"connection"`` (over the daemon, its
        presenter connection), or None (none, or a server that does not
        say: ``capabilities.presenter`` is newer than protocol 0.1)."""
        value = self.capabilities.get("presenter")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class TypeDescription(WireObject):
    """``contentTypes/describe``: one content type as the client sees it."""
    SCHEMA = "#/$defs/TypeDescription"
    identifier: str
    description: str
    conforms_to: List[str]
    supertypes: List[str]
    preferred_filename_extension: Optional[str]
    filename_extensions: List[str]
    preferred_mime_type: Optional[str]
    mime_types: List[str]
    is_declared: bool
    is_dynamic: bool
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Identification(WireObject):
    """``contentTypes/identify``: what one file is, and how that was decided."""
    SCHEMA = "#/$defs/Identification"
    path: str
    identifier: str
    mime_type: str
    source: str
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class DialogFilters(WireObject):
    """``contentTypes/filters``, and ``filters`` of ``presenter/show`` (where allows_all_files is
    None from a server older than it)."""
    SCHEMA = "#/requests/contentTypes~1filters/result"
    #: Required in that result, optional in presenter/show: hence the default.
    OPTIONAL_ELSEWHERE = ("allows_all_files",)
    globs: List[str]
    mime_types: List[str]
    directories: bool
    allows_all_files: Optional[bool] = None
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class ContentTypeChoice(WireObject):
    """One type an exporter offers (``presenter/show``'s ``contentTypeChoices``): what a type
    chooser shows for it, and the name of each document when the human picks it."""
    SCHEMA = "#/notifications/presenter~1show/params/properties/contentTypeChoices/items"
    content_type: str
    description: Optional[str]
    filenames: List[str]
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class DirectoryEntry(WireObject):
    """One entry of ``dialog/list``, as the dialog's browser shows it."""
    SCHEMA = "#/$defs/DirectoryEntry"
    name: str
    url: str
    is_directory: bool
    is_package: bool
    is_hidden: bool
    is_symlink: bool
    content_type: str
    size: int
    modified: str
    enabled: bool
    #: Why ``enabled`` is false, as ``dialog/choose`` would say it; None when enabled.
    disabled_reason: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class DirectoryListing(WireObject):
    """``dialog/list``: one page of a folder as the dialog shows it."""
    SCHEMA = "#/requests/dialog~1list/result"
    directory: str
    parent: Optional[str]
    entries: List[DirectoryEntry] = field(metadata={"convert": _list_of(DirectoryEntry)})
    next_cursor: Optional[str] = None
    #: Importers: whether ``directory`` itself may be chosen (a folder picker's choice); None
    #: for an exporter.
    directory_enabled: Optional[bool] = None
    #: Why ``directory_enabled`` is false, as ``dialog/choose`` would say it.
    directory_disabled_reason: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Lease(WireObject):
    """``resolveAccess``: one balanced access to a granted file; release it once. ``path`` is
    for display (a name that is not UTF-8 shows U+FFFD there): open ``url_to_path(url)``."""
    SCHEMA = "#/$defs/Lease"
    access_id: str
    url: str
    path: str
    read_only: bool
    is_stale: bool
    bookmark: Optional[str]
    is_directory: bool
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class AccessEntry(WireObject):
    """One grant or bookmark of ``listAccess``; ``path`` is for display, as a Lease's is."""
    SCHEMA = "#/$defs/AccessEntry"
    id: str
    kind: str
    url: str
    path: str
    read_only: bool
    is_directory: bool
    active_leases: int
    created: str
    bookmark: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class AccessList(WireObject):
    """``listAccess``: the app's grants and bookmarks."""
    SCHEMA = "#/requests/listAccess/result"
    entries: List[AccessEntry] = field(metadata={"convert": _list_of(AccessEntry)})
    active_leases: int
    extra: Dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass
class DialogOptions:
    """``options`` of ``presentImporter``/``presentExporter`` (SwiftUI's dialog modifiers)."""
    SCHEMA = "#/$defs/DialogOptions"
    default_directory: Optional[str] = None
    title: Optional[str] = None
    message: Optional[str] = None
    confirmation_label: Optional[str] = None
    browser_options: Optional[List[str]] = None
    url_enabled: Optional[Dict[str, Any]] = None
    imports_unresolved_aliases: Optional[bool] = None
    customization_id: Optional[str] = None
    timeout_ms: Optional[int] = None
    filename_label: Optional[str] = None
    #: Named filters ``[{"name", "predicate"}]`` the person switches between; the one in force
    #: at the pick comes back as the completion's ``filter``.
    filters: Optional[List[Dict[str, Any]]] = None
    current_filter: Optional[int] = None
    #: Choices ``[{"id", "label", "options"?, "initial"?}]``; their values come back as the
    #: completion's ``choices``.
    choices: Optional[List[Dict[str, Any]]] = None

    def to_json(self) -> Dict[str, Any]:
        return {camel(f.name): getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) is not None}


@dataclass
class ExportDocument:
    """One document to export. Give ``text``, ``data`` (bytes) or ``path`` for a value
    document, or ``snapshot`` — called with the chosen content type once the human has chosen
    where to save, returning ``str``, ``bytes`` or ``{"path": …}`` — for a lazy one."""
    writable_content_types: List[str]
    filename: Optional[str] = None
    text: Optional[str] = None
    data: Optional[bytes] = None
    path: Optional[str] = None
    snapshot: Optional[Callable[[str], Any]] = None

    def to_json(self) -> Dict[str, Any]:
        document: Dict[str, Any] = {"writableContentTypes": list(self.writable_content_types)}
        if self.filename is not None:
            document["filename"] = self.filename
        given = [name for name in ("text", "data", "path") if getattr(self, name) is not None]
        if len(given) + (self.snapshot is not None) > 1:
            raise ValueError("give at most one of text, data, path and snapshot")
        if self.text is not None or self.data is not None or self.path is not None:
            document["contents"] = contents_json(self.text if self.text is not None else
                                                 self.data if self.data is not None else {"path": self.path})
        return document


def contents_json(value: Any) -> Dict[str, Any]:
    """``str`` → ``{"text"}``, ``bytes`` → ``{"base64"}``, ``{"path": …}`` as is."""
    import base64
    if isinstance(value, str):
        return {"text": value}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict) and set(value) == {"path"}:
        return {"path": value["path"]}
    raise TypeError(f"document contents must be str, bytes or {{'path': …}}, not {type(value).__name__}")
