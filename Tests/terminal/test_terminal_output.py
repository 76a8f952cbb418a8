"""What the terminal picker writes, and when: a terminal that stops reading holds up neither the
app ending the dialog nor the server, and log lines meant for standard error wait while the
picker owns that same terminal."""
import fcntl
import json
import os
import pty
import queue
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

from harness import WHARF, Pane


def send(server: subprocess.Popen, message: dict) -> None:
    server.stdin.write((json.dumps(message) + "\n").encode())
    server.stdin.flush()


def receive_until(server: subprocess.Popen, predicate, timeout: float) -> dict:
    """The first message `predicate` accepts, read within `timeout` seconds (the server's
    output is read by a thread of its own, so a wait never blocks on a partial line)."""
    if not hasattr(server, "messages"):
        server.messages = queue.Queue()

        def read():
            for line in server.stdout:
                server.messages.put(json.loads(line))
            server.messages.put(None)
        threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + timeout
    while True:
        try:
            message = server.messages.get(timeout=max(deadline - time.monotonic(), 0.001))
        except queue.Empty:
            raise AssertionError(f"no such message within {timeout}s") from None
        assert message is not None, "the server closed its output"
        if predicate(message):
            return message


def test_a_terminal_that_stops_reading_does_not_hold_up_the_apps_cancel(tmp_path: Path):
    folder = tmp_path / "files"
    folder.mkdir()
    for index in range(200):
        (folder / f"file{index:03d}.txt").write_text("x\n")
    master, slave = pty.openpty()
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    found = termios.tcgetattr(slave)

    def own_terminal():
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    server = subprocess.Popen([WHARF, "--presenter", "terminal", "--state-dir", ":memory:"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=own_terminal, pass_fds=(slave,),
                              env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "LANG": "C.UTF-8", "HOME": str(folder)})
    os.close(slave)
    try:
        send(server, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t"}}})
        receive_until(server, lambda m: m.get("id") == 1, 30)
        send(server, {"jsonrpc": "2.0", "id": 2, "method": "presentImporter",
                      "params": {"allowedContentTypes": ["public.item"], "options": {"defaultDirectory": str(folder)}}})
        dialog = receive_until(server, lambda m: m.get("id") == 2, 30)["result"]["dialogId"]
        # Read the terminal until the entries are drawn; from then on nobody reads it.
        seen = b""
        deadline = time.monotonic() + 30
        while b"file000.txt" not in seen:
            assert time.monotonic() < deadline, seen[-500:]
            if select.select([master], [], [], 1)[0]:
                seen = seen[-2000:] + os.read(master, 65536)
        # Each Ctrl-L draws a whole frame: far more than the terminal's buffer holds, even when
        # several keys come in one read.
        os.set_blocking(master, False)
        for index in range(400):
            try:
                os.write(master, b"\x0c" if index % 2 == 0 else b"j")
            except BlockingIOError:
                break
            time.sleep(0.004)
        time.sleep(0.5)
        send(server, {"jsonrpc": "2.0", "id": 3, "method": "cancel", "params": {"dialogId": dialog}})
        ended = receive_until(server, lambda m: m.get("method") == "dialog/cancelled", 10)
        assert ended["params"]["reason"] == "client"
        send(server, {"jsonrpc": "2.0", "id": 4, "method": "shutdown"})
        receive_until(server, lambda m: m.get("id") == 4, 10)
        send(server, {"jsonrpc": "2.0", "method": "exit"})
        assert server.wait(timeout=10) == 0
        assert termios.tcgetattr(master) == found, "the terminal's mode is given back"
        waiting = 0
        while select.select([master], [], [], 0.2)[0]:
            try:
                waiting += len(os.read(master, 65536))
            except OSError:
                break
        assert waiting >= 12 * 1024, "the terminal's output had not filled up: the test stalled nothing"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        os.close(master)


LOGGING_CLIENT = r"""
import json, os, subprocess, sys, time
wharf, directory = sys.argv[1], sys.argv[2]
terminal = os.open("/dev/tty", os.O_WRONLY)
server = subprocess.Popen([wharf, "--presenter", "terminal", "--state-dir", ":memory:", "--log-level", "info"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=terminal)
def send(message):
    server.stdin.write((json.dumps(message) + "\n").encode()); server.stdin.flush()
def receive():
    return json.loads(server.stdout.readline())
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t"}}})
receive()
send({"jsonrpc": "2.0", "id": 2, "method": "presentImporter",
      "params": {"allowedContentTypes": ["public.item"], "options": {"defaultDirectory": directory}}})
receive()
time.sleep(1.0)
for index in range(3):
    send({"jsonrpc": "2.0", "method": "$/noticeMe" + str(index)})
print("logged", flush=True)
while True:
    message = receive()
    if message.get("method") in ("dialog/cancelled", "dialog/completed"):
        break
send({"jsonrpc": "2.0", "id": 9, "method": "shutdown"}); receive()
send({"jsonrpc": "2.0", "method": "exit"}); server.wait()
print("ended", flush=True)
"""


def test_log_lines_wait_while_the_picker_owns_the_terminal_they_go_to(tmp_path: Path):
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "alpha.txt").write_text("alpha\n")
    client = tmp_path / "client.py"
    client.write_text(LOGGING_CLIENT)
    work = tmp_path / "pane"
    work.mkdir()
    pane = Pane(work)
    try:
        pane.start([sys.executable, str(client), WHARF, str(folder)], cwd=folder)
        pane.wait_text("alpha.txt")
        deadline = time.monotonic() + 15
        while "logged" not in (pane.output.read_text() if pane.output.exists() else ""):
            assert time.monotonic() < deadline, pane.screen()
            time.sleep(0.05)
        time.sleep(1.0)
        screen = pane.screen()
        assert "noticeMe" not in screen, screen
        assert "alpha.txt" in screen and "q cancel" in screen, screen
        pane.keys("Escape")
        after = pane.wait_text("noticeMe2")
        lines = [line for line in after.split("\n") if "noticeMe" in line]
        assert [line.split("notification ")[-1] for line in lines] == ["$/noticeMe0", "$/noticeMe1", "$/noticeMe2"], after
        assert pane.wait_exit() == 0
        assert pane.terminal_given_back()
        assert "q cancel" not in pane.screen()
    finally:
        pane.kill()
