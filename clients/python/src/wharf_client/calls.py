"""Every typed request of the API, once: its method, params and how its result is read.

Both clients send exactly these (``WharfClient._call`` waits on a thread,
``AsyncWharfClient._call`` awaits), so the two APIs cannot send different things.
"""
from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, Generic, List, Optional, Sequence, Tuple, TypeVar, Union

from .errors import RequestError
from .types import (AccessList, DialogFilters, DialogOptions, DirectoryListing, ExportDocument, Identification,
                    InitializeResult, Lease, TypeDescription, contents_json)

T = TypeVar("T")
JSON = Any


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    params: JSON
    read: Callable[[JSON], T]


def _ignore(_: JSON) -> None:
    return None


def _item_error(method: str, item: Dict[str, JSON]) -> RequestError:
    error = item["error"]
    return RequestError(method, int(error.get("code", 0)), str(error.get("message", "")), error.get("data"))


# Lifecycle

def initialize(app: str, presents_dialogs: bool, prefers_desktop_dialogs: bool, trace: Optional[str],
               version: Optional[str]) -> Call[InitializeResult]:
    client_info: Dict[str, JSON] = {"name": app}
    if version:
        client_info["version"] = version
    capabilities: Dict[str, JSON] = {"presentsDialogs": presents_dialogs}
    if prefers_desktop_dialogs:
        capabilities["prefersDesktopDialogs"] = True
    params: Dict[str, JSON] = {"processId": os.getpid(), "clientInfo": client_info, "capabilities": capabilities}
    if trace:
        params["trace"] = trace
    return Call("initialize", params, InitializeResult.from_json)


def ping() -> Call[None]:
    return Call("ping", {}, _ignore)


def shutdown() -> Call[None]:
    return Call("shutdown", None, _ignore)


# Content types

def describe_types(identifiers: Sequence[str]) -> Call[List[Union[TypeDescription, RequestError]]]:
    def read(result: JSON) -> List[Union[TypeDescription, RequestError]]:
        return [_item_error("contentTypes/describe", t) if "error" in t else TypeDescription.from_json(t)
                for t in result["types"]]
    return Call("contentTypes/describe", {"identifiers": list(identifiers)}, read)


def identify(paths: Sequence[str], sniff: bool) -> Call[List[Union[Identification, RequestError]]]:
    def read(result: JSON) -> List[Union[Identification, RequestError]]:
        return [_item_error("contentTypes/identify", r) if "error" in r else Identification.from_json(r)
                for r in result["results"]]
    return Call("contentTypes/identify", {"paths": list(paths), "sniff": sniff}, read)


def conforms(identifier: str, to: str) -> Call[bool]:
    return Call("contentTypes/conforms", {"identifier": identifier, "to": to}, lambda r: bool(r["conforms"]))


def _identifier(result: JSON) -> Optional[str]:
    identifier = result["identifier"]
    return None if identifier is None else str(identifier)


def type_for_extension(extension: str, conforming_to: Optional[str]) -> Call[Optional[str]]:
    params = {"filenameExtension": extension}
    if conforming_to:
        params["conformingTo"] = conforming_to
    return Call("contentTypes/fromFilenameExtension", params, _identifier)


def type_for_mime_type(mime_type: str, conforming_to: Optional[str]) -> Call[Optional[str]]:
    params = {"mimeType": mime_type}
    if conforming_to:
        params["conformingTo"] = conforming_to
    return Call("contentTypes/fromMIMEType", params, _identifier)


def declare_types(types: Sequence[Dict[str, JSON]]) -> Call[List[str]]:
    return Call("contentTypes/declare", {"types": list(types)}, lambda r: [str(i) for i in r["declared"]])


def filters(identifiers: Sequence[str]) -> Call[DialogFilters]:
    return Call("contentTypes/filters", {"identifiers": list(identifiers)}, DialogFilters.from_json)


# Dialogs

def _options(options: Optional[DialogOptions], fields: Dict[str, JSON]) -> Dict[str, JSON]:
    merged = options.to_json() if options is not None else {}
    if fields:
        merged.update(DialogOptions(**fields).to_json())
    return merged


def importer_params(allowed_content_types: Sequence[str], multiple: bool, presentation_id: Optional[str],
                    options: Optional[DialogOptions], option_fields: Dict[str, JSON]) -> Dict[str, JSON]:
    params: Dict[str, JSON] = {"allowedContentTypes": list(allowed_content_types), "allowsMultipleSelection": multiple}
    if presentation_id is not None:
        params["presentationId"] = presentation_id
    merged = _options(options, option_fields)
    if merged:
        params["options"] = merged
    return params


def exporter_params(documents: Sequence[ExportDocument], content_type: Optional[str],
                    content_types: Optional[Sequence[str]], default_filename: Optional[str],
                    presentation_id: Optional[str], options: Optional[DialogOptions],
                    option_fields: Dict[str, JSON]) -> Dict[str, JSON]:
    params: Dict[str, JSON] = {"documents": [document.to_json() for document in documents]}
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


def mover_params(urls: Sequence[str], presentation_id: Optional[str], options: Optional[DialogOptions],
                 option_fields: Dict[str, JSON]) -> Dict[str, JSON]:
    params: Dict[str, JSON] = {"urls": list(urls)}
    if presentation_id is not None:
        params["presentationId"] = presentation_id
    merged = _options(options, option_fields)
    if merged:
        params["options"] = merged
    return params


def cancel(dialog_id: str) -> Call[bool]:
    return Call("cancel", {"dialogId": dialog_id}, lambda r: bool(r["cancelled"]))


def list_directory(dialog_id: str, directory: Optional[str], cursor: Optional[str],
                   limit: Optional[int], show_hidden: Optional[bool] = None) -> Call[DirectoryListing]:
    params: Dict[str, JSON] = {"dialogId": dialog_id}
    for key, value in (("directory", directory), ("cursor", cursor), ("limit", limit), ("showHidden", show_hidden)):
        if value is not None:
            params[key] = value
    return Call("dialog/list", params, DirectoryListing.from_json)


def choose(dialog_id: str, urls: Sequence[str]) -> Call[None]:
    return Call("dialog/choose", {"dialogId": dialog_id, "urls": list(urls)}, _ignore)


def save(dialog_id: str, url: str, content_type: Optional[str], overwrite: bool) -> Call[None]:
    params: Dict[str, JSON] = {"dialogId": dialog_id, "url": url}
    if content_type is not None:
        params["contentType"] = content_type
    if overwrite:
        params["overwrite"] = True
    return Call("dialog/choose", params, _ignore)


def move(dialog_id: str, folder: str, conflict_resolution: Optional[str]) -> Call[None]:
    params: Dict[str, JSON] = {"dialogId": dialog_id, "url": folder}
    if conflict_resolution is not None:
        if conflict_resolution not in ("replace", "keepBoth"):
            raise ValueError(f"conflict_resolution is 'replace' or 'keepBoth', not {conflict_resolution!r}")
        params["conflictResolution"] = conflict_resolution
    return Call("dialog/choose", params, _ignore)


def dismiss(dialog_id: str) -> Call[None]:
    return Call("dialog/dismiss", {"dialogId": dialog_id}, _ignore)


def fail(dialog_id: str, message: str) -> Call[None]:
    return Call("dialog/fail", {"dialogId": dialog_id, "message": message}, _ignore)


# Access

def _target(url: Optional[str], bookmark: Optional[str]) -> Dict[str, JSON]:
    if (url is None) == (bookmark is None):
        raise ValueError("give exactly one of url and bookmark")
    return {"url": url} if url is not None else {"bookmark": bookmark}


def resolve_access(url: Optional[str], bookmark: Optional[str]) -> Call[Lease]:
    return Call("resolveAccess", _target(url, bookmark), Lease.from_json)


def release_access(access_id: str) -> Call[None]:
    return Call("releaseAccess", {"accessId": access_id}, _ignore)


def create_bookmark(url: str) -> Call[str]:
    return Call("createBookmark", {"url": url}, lambda r: str(r["bookmark"]))


def list_access() -> Call[AccessList]:
    return Call("listAccess", {}, AccessList.from_json)


def revoke_access(url: Optional[str], bookmark: Optional[str]) -> Call[int]:
    return Call("revokeAccess", _target(url, bookmark), lambda r: int(r["revoked"]))


def read_file(access_id: str, offset: int, length: Optional[int]) -> Call[Tuple[bytes, bool]]:
    params: Dict[str, JSON] = {"accessId": access_id, "offset": offset}
    if length is not None:
        params["length"] = length
    return Call("readFile", params, lambda r: (base64.b64decode(r["base64"]), bool(r["eof"])))


def write_file(access_id: str, data: bytes, offset: int, truncate: bool) -> Call[int]:
    return Call("writeFile", {"accessId": access_id, "base64": base64.b64encode(data).decode("ascii"),
                              "offset": offset, "truncate": truncate}, lambda r: int(r["bytesWritten"]))


def snapshot_result(value: JSON) -> Dict[str, JSON]:
    """A snapshot provider's return value as the answer to ``exporter/snapshot``."""
    return contents_json(value)
