"""The local path a ``file:`` URL names, byte for byte.

A Linux file name is bytes and need not be UTF-8. Wharf names files by URL, percent-encoding
every byte of the path but unreserved ASCII and ``/``; the text ``path`` beside a URL (in a
:class:`~wharf_client.Lease` or an :class:`~wharf_client.AccessEntry`) is for display only: bytes
that are not UTF-8 show there as U+FFFD, so ``x`` + byte 0xFF and ``x`` + U+FFFD read the same
and opening the text may open the other file (protocol/README.md, "Paths are bytes").
"""
from __future__ import annotations

import os
from urllib.parse import unquote_to_bytes, urlsplit


def url_to_path(url: str) -> str:
    """The path to open for ``url``, a ``file:`` URL on this machine (no host, or
    ``localhost``). Its percent-escapes are decoded to their exact bytes and those to a ``str``
    as :func:`os.fsdecode` does: bytes that are not UTF-8 become lone surrogates, which
    ``open()`` and every :mod:`os` function turn back into the same bytes (:func:`os.fsencode`
    gives them). Raises ValueError for any other URL, or one with a query or fragment (a ``?`` or
    ``#`` in a name is ``%3F`` or ``%23``), which would name some other file."""
    parts = urlsplit(url)
    if (parts.scheme != "file" or parts.netloc.lower() not in ("", "localhost") or not parts.path.startswith("/")
            or parts.query or parts.fragment):
        raise ValueError(f"not the URL of a local file: {url!r}")
    return os.fsdecode(unquote_to_bytes(parts.path))
