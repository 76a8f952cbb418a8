"""Python client for Wharf, SwiftUI's fileImporter/fileExporter semantics over JSON-RPC.

    from wharf_client import WharfClient

    with WharfClient.spawn(app="my-editor", args=["--presenter", "script:demo.json"]) as client:
        dialog = client.present_importer(["public.image"], multiple=True)
        for url in dialog.result():
            with client.access(url) as path:
                print(path, open(path, "rb").read(8))

The asyncio API is :class:`wharf_client.aio.AsyncWharfClient`.
"""
from .client import WharfClient, find_wharf
from .dialogs import Dialog, DialogEvent, Presentation
from .errors import ConnectionLost, DialogCancelled, DialogFailed, RequestError, WharfError
from .types import (AccessEntry, AccessList, DialogFilters, DialogOptions, DirectoryEntry, DirectoryListing,
                    ExportDocument, Identification, InitializeResult, Lease, TypeDescription)

__all__ = [
    "WharfClient", "find_wharf", "Dialog", "DialogEvent", "Presentation",
    "WharfError", "RequestError", "ConnectionLost", "DialogCancelled", "DialogFailed",
    "AccessEntry", "AccessList", "DialogFilters", "DialogOptions", "DirectoryEntry", "DirectoryListing",
    "ExportDocument", "Identification", "InitializeResult", "Lease", "TypeDescription",
]
__version__ = "0.1.0"
