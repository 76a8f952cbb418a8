"""The one core under both APIs: a JSON-RPC 2.0 connection over a pair of byte streams.

A reader thread reads every message in order and settles responses itself (futures are thread
safe), so a caller blocked on a response never depends on anything else making progress.
Notifications and server→client requests go to the handlers in the order they arrived; handlers
that run user code are handed to a dispatcher thread so that a slow or blocking callback can
never stall the reader. Nothing polls: every wait is a blocking read, a ``Future`` or a
``queue.Queue.get``.
"""
from __future__ import annotations

import itertools
import json
import queue
import threading
from concurrent.futures import Future
from typing import Any, BinaryIO, Callable, Dict, Optional

from .errors import ConnectionLost, RequestError
from .framing import LSP, FrameReader, FramingError, encode

NotificationHandler = Callable[[str, Any], None]
#: Handles a server→client request; returns the result or raises RequestError to answer an error.
RequestHandler = Callable[[str, Any], Any]


class Connection:
    """Requests, notifications and responses over ``reader``/``writer``.

    ``on_notification(method, params)`` runs on the reader thread, in arrival order: keep it
    short (the client only routes). ``on_request(method, params)`` runs on the dispatcher
    thread and its return value (or ``RequestError``) is sent back as the response.
    ``on_close(error)`` runs once, on the reader thread, when the input ends.
    """

    def __init__(self, reader: BinaryIO, writer: BinaryIO, framing: str = LSP,
                 on_notification: Optional[NotificationHandler] = None,
                 on_request: Optional[RequestHandler] = None,
                 on_close: Optional[Callable[[ConnectionLost], None]] = None,
                 describe_end: Optional[Callable[[], str]] = None) -> None:
        self._reader = FrameReader(reader, framing)
        self._writer = writer
        self.framing = framing
        self._on_notification = on_notification
        self._on_request = on_request
        self._on_close = on_close
        self._describe_end = describe_end or (lambda: "the server closed the connection")
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._pending: Dict[Any, "tuple[str, Future, Optional[Callable[[Any], None]]]"] = {}
        self._closed: Optional[ConnectionLost] = None
        self._dispatch: "queue.Queue[Optional[Callable[[], None]]]" = queue.Queue()
        #: Called with ("send", message) and ("receive", message) for every message, in order
        #: (receive on the reader thread): for transcripts and debugging.
        self.traffic: Optional[Callable[[str, Any], None]] = None
        self._reader_thread = threading.Thread(target=self._read_loop, name="wharf-reader", daemon=True)
        self._dispatcher_thread = threading.Thread(target=self._dispatch_loop, name="wharf-dispatcher", daemon=True)

    def start(self) -> None:
        self._dispatcher_thread.start()
        self._reader_thread.start()

    # Sending

    def request(self, method: str, params: Any = None, on_result: Optional[Callable[[Any], None]] = None) -> Future:
        """Sends a request; the future settles with its result or a RequestError/ConnectionLost.

        ``on_result`` runs on the reader thread before the future settles, so whatever it sets
        up (a dialog's registration) is in place before the next message is read.
        """
        future: Future = Future()
        with self._lock:
            if self._closed is not None:
                future.set_exception(self._closed)
                return future
            request_id = next(self._ids)
            self._pending[request_id] = (method, future, on_result)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            self._write(message)
        except OSError as error:
            with self._lock:
                self._pending.pop(request_id, None)
            future.set_exception(ConnectionLost(f"cannot send {method}: {error}"))
        return future

    def notify(self, method: str, params: Any = None) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        try:
            self._write(message)
        except OSError as error:
            raise ConnectionLost(f"cannot send {method}: {error}") from None

    def _write(self, message: Any) -> None:
        frame = encode(message, self.framing)
        with self._write_lock:
            if self.traffic is not None:
                self.traffic("send", message)
            self._writer.write(frame)
            self._writer.flush()

    def call_soon(self, work: Callable[[], None]) -> None:
        """Runs ``work`` on the dispatcher thread, after what is already queued."""
        self._dispatch.put(work)

    @property
    def closed(self) -> Optional[ConnectionLost]:
        """Why the connection ended, once it has."""
        with self._lock:
            return self._closed

    def close_output(self) -> None:
        """Closes our writing end: end of input for the server."""
        with self._write_lock:
            try:
                self._writer.close()
            except OSError:
                pass

    def wait_closed(self, timeout: Optional[float] = None) -> bool:
        self._reader_thread.join(timeout)
        return not self._reader_thread.is_alive()

    # Receiving

    def _read_loop(self) -> None:
        reason = None
        try:
            while True:
                try:
                    message = self._reader.read()
                except (FramingError, ValueError) as error:
                    reason = f"the server sent something unreadable: {error}"
                    break
                if message is None:
                    break
                if self.traffic is not None:
                    self.traffic("receive", message)
                for item in message if isinstance(message, list) else [message]:
                    self._handle(item)
        except OSError as error:
            reason = f"reading from the server failed: {error}"
        finally:
            self._finish(reason)

    def _handle(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                request_id = message["id"]
                params = message.get("params")
                self._dispatch.put(lambda: self._answer(request_id, method, params))
            elif self._on_notification is not None:
                self._on_notification(method, message.get("params"))
            return
        with self._lock:
            entry = self._pending.pop(message.get("id"), None)
        if entry is None:
            return
        method, future, on_result = entry
        error = message.get("error")
        if isinstance(error, dict):
            future.set_exception(RequestError(method, error.get("code", 0), error.get("message", ""), error.get("data")))
            return
        result = message.get("result")
        if on_result is not None:
            try:
                on_result(result)
            except Exception as failure:  # a malformed result: fail the call, not the reader
                future.set_exception(failure)
                return
        future.set_result(result)

    def _answer(self, request_id: Any, method: str, params: Any) -> None:
        response: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        try:
            if self._on_request is None:
                raise RequestError(method, -32601, f"this client does not handle {method}")
            response["result"] = self._on_request(method, params)
        except RequestError as error:
            response["error"] = {"code": error.code, "message": error.message}
            if error.data is not None:
                response["error"]["data"] = error.data
        except Exception as error:  # the user's callback failed: tell the server, keep going
            response["error"] = {"code": -32603, "message": f"{type(error).__name__}: {error}"}
        try:
            self._write(response)
        except OSError:
            pass

    def _finish(self, reason: Optional[str]) -> None:
        error = ConnectionLost(reason or self._describe_end())
        with self._lock:
            self._closed = error
            pending, self._pending = self._pending, {}
        for method, future, _ in pending.values():
            future.set_exception(ConnectionLost(f"{method} got no answer: {error}"))
        if self._on_close is not None:
            self._on_close(error)
        self._dispatch.put(None)

    def _dispatch_loop(self) -> None:
        while True:
            work = self._dispatch.get()
            if work is None:
                return
            try:
                work()
            except Exception:  # a user callback's failure must not end dispatching
                import traceback
                traceback.print_exc()


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
