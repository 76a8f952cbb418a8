"""Replays a transcript of protocol/conformance/ against a real wharf, exactly as
protocol/conformance/README.md defines it (the Swift and Node runners implement the same rules).

It speaks raw protocol through the package's framing module, since transcripts send what no
client would (invalid JSON, batches, bare ids).
"""
from __future__ import annotations

import base64
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from typing import Any, Dict, List, Optional

from wharf_client.framing import FrameReader, encode, encode_body

MESSAGE_TIMEOUT = 10.0
CAPTURE = re.compile(r"^\$[A-Za-z_][A-Za-z0-9_]*$")
_MISSING = object()


class TranscriptFailure(AssertionError):
    pass


def substitute_paths(value: Any, fixtures: str) -> Any:
    if isinstance(value, str):
        return value.replace("$fixturesURL", "file://" + fixtures).replace("$fixtures", fixtures)
    if isinstance(value, list):
        return [substitute_paths(v, fixtures) for v in value]
    if isinstance(value, dict):
        return {k: substitute_paths(v, fixtures) for k, v in value.items()}
    return value


def substitute_captures(value: Any, captures: Dict[str, Any]) -> Any:
    if isinstance(value, str) and CAPTURE.match(value):
        if value[1:] not in captures:
            raise TranscriptFailure(f"the transcript uses {value} before binding it")
        return captures[value[1:]]
    if isinstance(value, list):
        return [substitute_captures(v, captures) for v in value]
    if isinstance(value, dict):
        return {k: substitute_captures(v, captures) for k, v in value.items()}
    return value


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _has_type(value: Any, name: str) -> bool:
    return {
        "null": value is None,
        "boolean": isinstance(value, bool),
        "string": isinstance(value, str),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
        "integer": isinstance(value, int) and not isinstance(value, bool)
                   or isinstance(value, float) and value.is_integer(),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
    }.get(name, False)


def matches(value: Any, pattern: Any, captures: Dict[str, Any]) -> bool:
    """Whether ``value`` matches ``pattern``; new captures are bound only when it does."""
    trial = dict(captures)
    if _match(value, pattern, trial):
        captures.clear()
        captures.update(trial)
        return True
    return False


def _match(value: Any, pattern: Any, captures: Dict[str, Any]) -> bool:
    if pattern == "*":
        return value is not _MISSING
    if isinstance(pattern, str) and CAPTURE.match(pattern):
        if value is _MISSING:
            return False
        name = pattern[1:]
        if name in captures:
            return _equal(captures[name], value)
        captures[name] = value
        return True
    if isinstance(pattern, dict):
        if len(pattern) == 1:
            (key, argument), = pattern.items()
            if key.startswith("$"):
                return value is not _MISSING and _operator(key, argument, value, captures)
        if not isinstance(value, dict):
            return False
        for key, member in pattern.items():
            if member == {"$absent": True}:
                if key in value:
                    return False
                continue
            if not _match(value.get(key, _MISSING), member, captures):
                return False
        return True
    if isinstance(pattern, list):
        return isinstance(value, list) and len(value) == len(pattern) and \
            all(_match(v, p, captures) for v, p in zip(value, pattern))
    return value is not _MISSING and _equal(value, pattern)


def _operator(name: str, argument: Any, value: Any, captures: Dict[str, Any]) -> bool:
    if name == "$type":
        return _has_type(value, argument)
    if name == "$contains":
        return isinstance(value, str) and argument in value
    if name == "$unordered":
        return isinstance(value, list) and len(value) == len(argument) and \
            assign(value, argument, captures, keep_method_order=False)
    return False


def assign(values: List[Any], patterns: List[Any], captures: Dict[str, Any], keep_method_order: bool) -> bool:
    """One to one; with ``keep_method_order`` the patterns naming a method match in order."""
    used = [False] * len(values)

    def step(index: int, last_ordered: int, bound: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        if index == len(patterns):
            return bound
        pattern = patterns[index]
        ordered = keep_method_order and isinstance(pattern, dict) and "method" in pattern
        for candidate in range(last_ordered + 1 if ordered else 0, len(values)):
            if used[candidate]:
                continue
            trial = dict(bound)
            if not _match(values[candidate], pattern, trial):
                continue
            used[candidate] = True
            found = step(index + 1, candidate if ordered else last_ordered, trial)
            if found is not None:
                return found
            used[candidate] = False
        return None

    if len(values) != len(patterns):
        return False
    result = step(0, -1, dict(captures))
    if result is None:
        return False
    captures.clear()
    captures.update(result)
    return True


def load(path: str) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as file:
        transcript = json.load(file)
    steps = transcript.get("steps", [])
    if not steps or "exit" not in steps[-1]:
        raise TranscriptFailure(f"{path}: the last step must be an exit step")
    return transcript


def make_fixtures(root: str, fixtures: Dict[str, Any]) -> None:
    folder = os.path.join(root, "fixtures")
    for relative, content in fixtures.items():
        if relative.startswith("/") or ".." in relative.split("/"):
            raise TranscriptFailure(f"fixture path {relative!r} must stay inside the fixtures folder")
        path = os.path.join(folder, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        content = substitute_paths(content, folder)
        if isinstance(content, str):
            with open(path, "w", encoding="utf-8") as file:
                file.write(content)
        elif "json" in content:
            with open(path, "w", encoding="utf-8") as file:
                json.dump(content["json"], file)
        elif "base64" in content:
            with open(path, "wb") as file:
                file.write(base64.b64decode(content["base64"], validate=True))
        elif "size" in content:
            with open(path, "wb") as file:
                file.truncate(content["size"])
        elif content.get("directory") is True:
            os.makedirs(path, exist_ok=True)
        elif "symlink" in content:
            os.symlink(content["symlink"], path)
        else:
            raise TranscriptFailure(f"fixture {relative}: unknown content {content!r}")


class Runner:
    """One run of one transcript."""

    def __init__(self, wharf: str, transcript: Dict[str, Any]) -> None:
        self.wharf = wharf
        self.transcript = transcript
        self.captures: Dict[str, Any] = {}
        self.pending: List[Any] = []
        self.inbox: "queue.Queue[Any]" = queue.Queue()
        self.markers = 0

    def run(self) -> None:
        root = os.path.realpath(tempfile.mkdtemp(prefix="wharf-conformance-"))
        try:
            os.makedirs(os.path.join(root, "fixtures"))
            os.makedirs(os.path.join(root, "state"))
            self.fixtures = os.path.join(root, "fixtures")
            make_fixtures(root, self.transcript.get("fixtures", {}))
            server = self.transcript.get("server", {})
            self.framing = server.get("framing", "lsp")
            arguments = [substitute_paths(a, self.fixtures) for a in server.get("arguments", [])]
            self.process = subprocess.Popen([self.wharf, *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE,
                                            env={**os.environ, "XDG_STATE_HOME": os.path.join(root, "state")})
            threading.Thread(target=self._read, daemon=True).start()
            try:
                for number, step in enumerate(self.transcript["steps"], 1):
                    try:
                        self._perform(substitute_paths(step, self.fixtures))
                    except TranscriptFailure as failure:
                        comment = f" ({step['comment']})" if "comment" in step else ""
                        raise TranscriptFailure(f"step {number}{comment}: {failure}") from None
            finally:
                if self.process.poll() is None:
                    self.process.kill()
                self.process.wait()
                self.process.stdout.close()
                self.process.stderr.close()
                if self.process.stdin and not self.process.stdin.closed:
                    try:
                        self.process.stdin.close()
                    except OSError:
                        pass
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def _read(self) -> None:
        reader = FrameReader(self.process.stdout, self.framing)
        try:
            while True:
                body = reader.read_body()
                if body is None:
                    break
                self.inbox.put(json.loads(body))
        finally:
            self.inbox.put(_MISSING)

    def _write(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def _next(self) -> Any:
        if self.pending:
            return self.pending.pop(0)
        try:
            message = self.inbox.get(timeout=MESSAGE_TIMEOUT)
        except queue.Empty:
            return _MISSING
        if message is _MISSING:
            self.inbox.put(_MISSING)  # stays at the end for later readers
        return message

    def _perform(self, step: Dict[str, Any]) -> None:
        if "send" in step:
            self._write(encode(substitute_captures(step["send"], self.captures), self.framing))
        elif "sendBody" in step:
            self._write(encode_body(step["sendBody"].encode("utf-8"), self.framing))
        elif "sendRaw" in step:
            self._write(step["sendRaw"].encode("utf-8"))
        elif "expect" in step:
            message = self._next()
            if message is _MISSING:
                raise TranscriptFailure(f"expected {json.dumps(step['expect'])}, but nothing came")
            if not matches(message, step["expect"], self.captures):
                raise TranscriptFailure(f"expected {json.dumps(step['expect'])}\n  got {json.dumps(message)}")
        elif "expectAll" in step:
            patterns = step["expectAll"]
            messages = []
            for _ in patterns:
                message = self._next()
                if message is _MISSING:
                    raise TranscriptFailure(f"expected {len(patterns)} messages, got only {json.dumps(messages)}")
                messages.append(message)
            if not assign(messages, patterns, self.captures, keep_method_order=True):
                raise TranscriptFailure(f"expected {json.dumps(patterns)} (responses anywhere, the rest in order)\n"
                                        f"  got {json.dumps(messages)}")
        elif "expectSome" in step:
            count = 0
            while True:
                message = self._next()
                if message is _MISSING:
                    break
                if not matches(message, step["expectSome"], self.captures):
                    self.pending.insert(0, message)
                    break
                count += 1
            if count == 0:
                raise TranscriptFailure(f"expected one or more messages matching {json.dumps(step['expectSome'])}")
        elif "expectNone" in step:
            self.markers += 1
            marker = f"conformance-marker-{self.markers}"
            self._write(encode({"jsonrpc": "2.0", "id": marker, "method": "ping"}, self.framing))
            while True:
                try:
                    message = self.inbox.get(timeout=MESSAGE_TIMEOUT)
                except queue.Empty:
                    message = _MISSING
                if message is _MISSING:
                    raise TranscriptFailure(f"no answer to the marker ping {marker}")
                if isinstance(message, dict) and message.get("id") == marker and "method" not in message:
                    break
                self.pending.append(message)
            pattern = step["expectNone"]
            for message in self.pending:
                if pattern is None or matches(message, pattern, dict(self.captures)):
                    raise TranscriptFailure(f"expected no message{'' if pattern is None else ' matching ' + json.dumps(pattern)}"
                                            f", got {json.dumps(message)}")
        elif "closeInput" in step:
            self.process.stdin.close()
        elif "signal" in step:
            self.process.send_signal({"TERM": signal.SIGTERM, "INT": signal.SIGINT}[step["signal"]])
        elif "exit" in step:
            try:
                status = self.process.wait(MESSAGE_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise TranscriptFailure("wharf did not exit") from None
            if status != step["exit"]:
                raise TranscriptFailure(f"wharf exited with status {status}, expected {step['exit']}; "
                                        f"stderr: {self.process.stderr.read().decode(errors='replace')}")
            while True:
                try:
                    message = self.inbox.get(timeout=MESSAGE_TIMEOUT)
                except queue.Empty:
                    raise TranscriptFailure("wharf's output stayed open after it exited") from None
                if message is _MISSING:
                    break
                self.pending.append(message)
            if self.pending:
                raise TranscriptFailure("wharf sent messages no step expected: "
                                        + "\n  ".join(json.dumps(m) for m in self.pending))
        else:
            raise TranscriptFailure(f"unknown step {json.dumps(step)}")
