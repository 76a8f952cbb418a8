"""Message framing: LSP headers (``Content-Length: N\\r\\n\\r\\n`` + body) or newline-delimited JSON.

Kept apart from the client so that anything speaking raw protocol (the conformance runner, a
debugging tool) can use it without the rest.
"""
from __future__ import annotations

import json
from typing import Any, BinaryIO, List, Optional

LSP = "lsp"
NDJSON = "ndjson"


class FramingError(Exception):
    """The peer wrote something that is not a frame."""


def encode_body(body: bytes, framing: str = LSP) -> bytes:
    """One frame around ``body``, which must already be JSON text."""
    if framing == LSP:
        return b"Content-Length: %d\r\n\r\n" % len(body) + body
    if framing == NDJSON:
        if b"\n" in body:
            raise ValueError("an NDJSON body cannot contain a newline")
        return body + b"\n"
    raise ValueError(f"unknown framing {framing!r}")


def encode(message: Any, framing: str = LSP) -> bytes:
    """``message`` as compact JSON text in one frame."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return encode_body(body, framing)


class FrameReader:
    """Reads whole frames from a binary stream; ``read_body`` returns None at end of input."""

    def __init__(self, stream: BinaryIO, framing: str = LSP) -> None:
        if framing not in (LSP, NDJSON):
            raise ValueError(f"unknown framing {framing!r}")
        self.stream = stream
        self.framing = framing

    def read_body(self) -> Optional[bytes]:
        if self.framing == NDJSON:
            while True:
                line = self.stream.readline()
                if not line:
                    return None
                line = line.rstrip(b"\r\n")
                if line.strip():
                    return line
        length = None
        while True:
            line = self.stream.readline()
            if not line:
                if length is not None:
                    raise FramingError("input ended inside a header block")
                return None
            if line in (b"\r\n", b"\n"):
                if length is None:
                    raise FramingError("a header block without Content-Length")
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    raise FramingError(f"bad Content-Length: {value.strip()!r}") from None
        body = self.stream.read(length)
        if body is None or len(body) < length:
            raise FramingError(f"input ended inside a body of {length} bytes")
        return body

    def read(self) -> Optional[Any]:
        """The next message, parsed; None at end of input."""
        body = self.read_body()
        return None if body is None else json.loads(body)


class FrameDecoder:
    """Incremental, I/O-free: ``push(bytes)`` returns the frame bodies completed so far.

    The protocol core (:mod:`wharf_client.core`) feeds it whatever the transport read, so
    the asyncio and the threaded drivers decode identically.
    """

    def __init__(self, framing: str = LSP) -> None:
        if framing not in (LSP, NDJSON):
            raise ValueError(f"unknown framing {framing!r}")
        self.framing = framing
        self._buffer = bytearray()
        self._expected: Optional[int] = None

    @property
    def partial(self) -> bool:
        """True when the input so far stops inside a frame."""
        if self.framing == NDJSON:
            return bool(bytes(self._buffer).strip())
        return self._expected is not None or bool(self._buffer)

    def push(self, data: bytes) -> List[bytes]:
        self._buffer += data
        bodies: List[bytes] = []
        while True:
            body = self._next_line() if self.framing == NDJSON else self._next_lsp()
            if body is None:
                return bodies
            bodies.append(body)

    def _next_line(self) -> Optional[bytes]:
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                return None
            line = bytes(self._buffer[:end]).rstrip(b"\r")
            del self._buffer[:end + 1]
            if line.strip():
                return line

    def _next_lsp(self) -> Optional[bytes]:
        if self._expected is None:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                return None
            headers = bytes(self._buffer[:end]).decode("ascii", "replace").split("\r\n")
            del self._buffer[:end + 4]
            for header in headers:
                name, _, value = header.partition(":")
                if name.strip().lower() == "content-length":
                    try:
                        self._expected = int(value.strip())
                    except ValueError:
                        raise FramingError(f"bad Content-Length: {value.strip()!r}") from None
            if self._expected is None or self._expected < 0:
                self._expected = None
                raise FramingError(f"a header block without a valid Content-Length: {headers!r}")
        if len(self._buffer) < self._expected:
            return None
        body = bytes(self._buffer[:self._expected])
        del self._buffer[:self._expected]
        self._expected = None
        return body
