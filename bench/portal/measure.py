"""Measures `wharf portal` (bench/portal/run.sh runs it on a private session bus).

- call → presenter asked, presenter answered → reply: OpenFile called on the backend directly,
  as the frontend calls it, answered by a stand-in zenity (fake-zenity.c) that records when it
  was started and when it answered; each figure includes one D-Bus hop and the presenter's
  start (what Wharf does to ask it). p50 over 200 calls, one at a time.
- call → terminal window asked: the same, with `--presenter terminal` and a stand-in xterm
  (fake-xterm.c) that records when it was started and exits.
- the whole call with the script presenter (no process started): Wharf's cost both ways.
- idle resident memory of `wharf portal` after it took its name.
- 100 OpenFile calls at once through the real xdg-desktop-portal frontend, all answered.
"""
import os
import statistics
import subprocess
import tempfile
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

WHARF = os.environ["WHARF"]
SCRATCH = os.environ["PORTAL_BENCH"]
BACKEND = "org.freedesktop.impl.portal.desktop.wharf"
DESKTOP = "/org/freedesktop/portal/desktop"
IMPL = "org.freedesktop.impl.portal.FileChooser"
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)


def owned(name):
    return bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                         GLib.Variant("(s)", (name,)), None, 0, 5000, None).unpack()[0]


def wait_for(condition, seconds=20):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("timed out")
        time.sleep(0.01)


def backend(*presenter):
    process = subprocess.Popen([WHARF, "portal", "--state-dir", ":memory:", *presenter], stderr=subprocess.DEVNULL)
    wait_for(lambda: owned(BACKEND))
    return process


def stop(process):
    process.terminate()
    process.wait(10)
    wait_for(lambda: not owned(BACKEND))


def call(index):
    value = GLib.Variant("(osssa{sv})", (f"/org/freedesktop/portal/desktop/request/bench/t{index}", "", "", "", {}))
    return bus.call_sync(BACKEND, DESKTOP, IMPL, "OpenFile", value, None, 0, 10000, None).unpack()


def p50(values):
    return statistics.median(values) / 1e6


pick = os.path.join(SCRATCH, "a.txt")
with open(pick, "w") as out:
    out.write("a\n")
os.environ["PORTAL_BENCH_PICK"] = pick
times = os.path.join(SCRATCH, "times")
os.environ["PORTAL_BENCH_TIMES"] = times

# One at a time, answered by the stand-in zenity.
process = backend("--presenter", "zenity")
for index in range(10):
    call(index)
open(times, "w").close()
sent, received = [], []
for index in range(200):
    sent.append(time.time_ns())
    response, _ = call(1000 + index)
    received.append(time.time_ns())
    assert response == 0, response
stop(process)
with open(times) as log:
    asked, answered = zip(*[map(int, line.split()) for line in log])
to_presenter = [a - s for s, a in zip(sent, asked)]
back = [r - a for a, r in zip(answered, received)]
print(f"portal call -> presenter asked (zenity started), p50 over 200: {p50(to_presenter):.2f} ms (target < 2 ms)")
print(f"portal presenter answered -> reply, p50 over 200: {p50(back):.2f} ms (target < 2 ms)")

# One at a time, drawn in a terminal window: the stand-in xterm records when it started and
# exits without a window (response 2).
asked_log = os.path.join(SCRATCH, "terminal-asked")
os.environ["PORTAL_BENCH_ASKED"] = asked_log
process = backend("--presenter", "terminal", "--terminal", os.path.join(SCRATCH, "terminal", "xterm"))
for index in range(10):
    call(3000 + index)
open(asked_log, "w").close()
sent = []
for index in range(200):
    sent.append(time.time_ns())
    call(4000 + index)
stop(process)
with open(asked_log) as log:
    started = [int(line) for line in log]
print(f"portal call -> terminal window asked (xterm started), p50 over 200: "
      f"{p50([s - c for c, s in zip(sent, started)]):.2f} ms (target < 2 ms)")

# The whole call, with the script presenter.
script = os.path.join(SCRATCH, "script.json")
with open(script, "w") as out:
    out.write(f'[{{"choose": ["{pick}"]}}]')
process = backend("--presenter", "script:" + script)
for index in range(10):
    call(index)
whole = []
for index in range(200):
    started = time.perf_counter_ns()
    call(2000 + index)
    whole.append(time.perf_counter_ns() - started)
time.sleep(1)
with open(f"/proc/{process.pid}/status") as status:
    rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
stop(process)
print(f"portal whole OpenFile with the script presenter, p50 over 200: {p50(whole):.2f} ms")

# Idle memory: a fresh backend that has answered nothing.
process = backend("--presenter", "script:" + script)
time.sleep(1)
with open(f"/proc/{process.pid}/status") as status:
    idle = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
stop(process)
print(f"portal idle resident memory (VmRSS): {idle:.1f} MiB (target < 10 MiB); after 210 dialogs {rss:.1f} MiB")

# 100 at once through the real frontend.
portals = tempfile.mkdtemp(dir=SCRATCH)
with open(os.path.join(portals, "wharf.portal"), "w") as out:
    out.write("[portal]\nDBusName=org.freedesktop.impl.portal.desktop.wharf\n"
              "Interfaces=org.freedesktop.impl.portal.FileChooser;\nUseIn=wharf\n")
process = backend("--presenter", "script:" + script)
frontend = subprocess.Popen(["/usr/libexec/xdg-desktop-portal", "--replace"], stderr=subprocess.DEVNULL,
                            env=dict(os.environ, XDG_DESKTOP_PORTAL_DIR=portals, XDG_CURRENT_DESKTOP="wharf"))
wait_for(lambda: owned("org.freedesktop.portal.Desktop"))
sender = bus.get_unique_name()[1:].replace(".", "_")
responses = {}
for index in range(100):
    path = f"/org/freedesktop/portal/desktop/request/{sender}/b{index}"
    bus.signal_subscribe("org.freedesktop.portal.Desktop", "org.freedesktop.portal.Request", "Response", path, None,
                         Gio.DBusSignalFlags.NO_MATCH_RULE, lambda c, s, p, i, n, params: responses.__setitem__(p, params.unpack()[0]))
started = time.perf_counter()
for index in range(100):
    bus.call("org.freedesktop.portal.Desktop", DESKTOP, "org.freedesktop.portal.FileChooser", "OpenFile",
             GLib.Variant("(ssa{sv})", ("", "Bench", {"handle_token": GLib.Variant("s", f"b{index}")})), None, 0, 30000, None, None)
context = GLib.MainContext.default()
deadline = time.monotonic() + 60
while len(responses) < 100 and time.monotonic() < deadline:
    context.iteration(True)
elapsed = time.perf_counter() - started
frontend.terminate()
frontend.wait(10)
stop(process)
answered = sum(1 for response in responses.values() if response == 0)
print(f"portal 100 concurrent OpenFile through xdg-desktop-portal: {answered} of 100 answered with files in {elapsed * 1000:.0f} ms")
