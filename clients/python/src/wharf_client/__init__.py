"""Python client for Wharf, SwiftUI's fileImporter/fileExporter semantics over JSON-RPC.

    from wharf_client import WharfClient

    with WharfClient.spawn(app="my-editor", args=["--presenter", "script:demo.json"]) as client:
        dialog = client.present_importer(["public.image"], multiple=True)
        for url in dialog.result():
            with client.access(url) as path:
                print(path, open(path, "rb").read(8))

The asyncio API, method for method the same, is :class:`wharf_client.aio.AsyncWharfClient`.
"""
from .client import DEFAULT_TIMEOUT, INSTALLED_LOCATIONS, Dialog, Presentation, WharfClient, find_wharf
from .core import DialogEvent
from .errors import ConnectionLost, DialogCancelled, DialogFailed, RequestError, WharfError, WharfTimeout
from .paths import url_to_path
from .types import (AccessEntry, AccessList, ClientIdentity, ContentTypeChoice, DialogFilters, DialogOptions, DirectoryEntry, DirectoryListing,
                    ExportDocument, Identification, InitializeResult, Lease, ServerInfo, TypeDescription)

__all__ = [
    "WharfClient", "find_wharf", "DEFAULT_TIMEOUT", "INSTALLED_LOCATIONS", "Dialog", "DialogEvent", "Presentation",
    "WharfError", "RequestError", "ConnectionLost", "DialogCancelled", "DialogFailed", "WharfTimeout",
    "AccessEntry", "AccessList", "ClientIdentity", "ContentTypeChoice", "DialogFilters", "DialogOptions", "DirectoryEntry", "DirectoryListing",
    "ExportDocument", "Identification", "InitializeResult", "Lease", "ServerInfo", "TypeDescription",
    "url_to_path",
]
#: The version of this package, which follows the server's (``wharf --version``).
__version__ = "0.1.0"
