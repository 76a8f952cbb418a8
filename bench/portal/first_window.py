"""Time to the first window: `wharf portal` beside its peer, xdg-desktop-portal-gtk.

Run by bench/portal/run.sh on a private session bus under Xvfb (no window manager). Each
backend sits behind the real xdg-desktop-portal frontend, chosen by its own .portal file's
UseIn= against XDG_CURRENT_DESKTOP; an app's OpenFile goes to the frontend, and the clock stops
when a top-level window is mapped (MapNotify on the root window, watched with python3-xlib):

- the peer: xdg-desktop-portal-gtk 1.14, already running (its GTK started), drawing its
  GtkFileChooserDialog;
- Wharf with `--presenter terminal --terminal xterm`: the xterm window it opens, and the
  terminal picker's first frame in it (the moment the picker puts the tty in raw mode, just
  before it draws); what Wharf itself adds before xterm starts is measure.py's;
- Wharf with `--presenter zenity` (the real zenity): zenity's window.

Each dialog is ended with the app's Request.Close, and the next call waits for its window to
go. The p50 over RUNS calls, after one call not counted. The target is the picker's first frame
within a tenth of a second, what a person takes for at once; the GTK backend, a process that
is already running with GTK started, is the figure beside it.
"""
import os
import select
import statistics
import subprocess
import sys
import tempfile
import termios
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402
from Xlib import X, display as xdisplay  # noqa: E402

WHARF = os.environ["WHARF"]
SCRATCH = os.environ["PORTAL_BENCH"]
RUNS = int(os.environ.get("PORTAL_BENCH_WINDOW_RUNS", "15"))
DESKTOP = "/org/freedesktop/portal/desktop"
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
screen = xdisplay.Display()
root = screen.screen().root
root.change_attributes(event_mask=X.SubstructureNotifyMask)
screen.sync()


def owned(name):
    return bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                         GLib.Variant("(s)", (name,)), None, 0, 5000, None).unpack()[0]


def wait_for(condition, seconds=30, what="condition"):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"first_window: timed out waiting for {what}")
        time.sleep(0.001)


def next_event(kinds, seconds=30):
    """The next X event of one of `kinds` on the root's children, and when it came (ns)."""
    deadline = time.monotonic() + seconds
    while True:
        while screen.pending_events():
            event = screen.next_event()
            if event.type in kinds:
                return event, time.perf_counter_ns()
        left = deadline - time.monotonic()
        if left <= 0:
            raise SystemExit("first_window: no window appeared")
        select.select([screen.fileno()], [], [], left)


def drain():
    while screen.pending_events():
        screen.next_event()


class Frontend:
    def __init__(self, portal_name, portal_text, desktop):
        folder = tempfile.mkdtemp(dir=SCRATCH)
        with open(os.path.join(folder, portal_name), "w") as out:
            out.write(portal_text)
        self.process = subprocess.Popen(["/usr/libexec/xdg-desktop-portal", "--replace"], stderr=subprocess.DEVNULL,
                                        env=dict(os.environ, XDG_DESKTOP_PORTAL_DIR=folder, XDG_CURRENT_DESKTOP=desktop))
        wait_for(lambda: owned("org.freedesktop.portal.Desktop"), what="the frontend")

    def stop(self):
        self.process.terminate()
        self.process.wait(10)
        wait_for(lambda: not owned("org.freedesktop.portal.Desktop"), what="the frontend to go")


counter = 0


def open_file():
    """An app's OpenFile through the frontend; returns the Request's path."""
    global counter
    counter += 1
    return bus.call_sync("org.freedesktop.portal.Desktop", DESKTOP, "org.freedesktop.portal.FileChooser", "OpenFile",
                         GLib.Variant("(ssa{sv})", ("", f"Bench {counter}", {"handle_token": GLib.Variant("s", f"w{counter}")})),
                         GLib.VariantType("(o)"), 0, 30000, None).unpack()[0]


def close(handle):
    """The app's Request.Close. Straight after the window maps, the frontend may not have the
    Request object on the bus yet: tried again for a few seconds."""
    deadline = time.monotonic() + 5
    while True:
        try:
            bus.call_sync("org.freedesktop.portal.Desktop", handle, "org.freedesktop.portal.Request", "Close",
                          None, None, 0, 10000, None)
            return
        except GLib.Error:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def measure(first_frame=None):
    """Times one OpenFile to its window mapped (and to `first_frame()` when given), in ms."""
    drain()
    started = time.perf_counter_ns()
    handle = open_file()
    event, mapped = next_event((X.MapNotify,))
    framed = None
    if first_frame:
        wait_for(first_frame, what="the first frame")
        framed = time.perf_counter_ns()
    close(handle)
    window = event.window.id
    while True:
        gone, _ = next_event((X.DestroyNotify, X.UnmapNotify))
        if gone.window.id == window:
            break
    return (mapped - started) / 1e6, (framed - started) / 1e6 if framed else None


def series(first_frame=None):
    measure(first_frame)  # the first call loads what later calls find loaded
    results = [measure(first_frame) for _ in range(RUNS)]
    return [mapped for mapped, _ in results], [framed for _, framed in results if framed is not None]


def picker_in_raw_mode(backend):
    """The terminal picker has the tty: `wharf portal --run-dialog` (under xterm) in raw mode."""
    for pid in descendants(backend.pid):
        try:
            with open(f"/proc/{pid}/comm") as comm:
                if comm.read().strip() != "wharf":
                    continue
            fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            return not termios.tcgetattr(fd)[3] & termios.ICANON
        except termios.error:
            return False
        finally:
            os.close(fd)
    return False


def descendants(pid):
    children, found = {}, []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry))
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def p50(values):
    return statistics.median(values)


def wharf_backend(*presenter):
    backend = subprocess.Popen([WHARF, "portal", "--state-dir", ":memory:", *presenter], stderr=subprocess.DEVNULL)
    wait_for(lambda: owned("org.freedesktop.impl.portal.desktop.wharf"), what="wharf portal")
    return backend


def stop(process, name):
    process.terminate()
    process.wait(10)
    wait_for(lambda: not owned(name), what=f"{name} to go")


# The peer: xdg-desktop-portal-gtk, behind the frontend by UseIn=benchgtk.
with open("/usr/share/xdg-desktop-portal/portals/gtk.portal") as source:
    gtk_portal = "".join(line if not line.startswith("UseIn=") else "UseIn=benchgtk\n" for line in source)
peer = subprocess.Popen(["/usr/libexec/xdg-desktop-portal-gtk", "--replace"], stderr=subprocess.DEVNULL)
wait_for(lambda: owned("org.freedesktop.impl.portal.desktop.gtk"), what="xdg-desktop-portal-gtk")
frontend = Frontend("gtk.portal", gtk_portal, "benchgtk")
gtk_mapped, _ = series()
frontend.stop()
stop(peer, "org.freedesktop.impl.portal.desktop.gtk")
peer_p50 = p50(gtk_mapped)

wharf_portal = ("[portal]\nDBusName=org.freedesktop.impl.portal.desktop.wharf\n"
                "Interfaces=org.freedesktop.impl.portal.FileChooser;\nUseIn=wharf\n")
frontend = Frontend("wharf.portal", wharf_portal, "wharf")
backend = wharf_backend("--presenter", "terminal", "--terminal", "xterm")
xterm_mapped, xterm_framed = series(lambda: picker_in_raw_mode(backend))
stop(backend, "org.freedesktop.impl.portal.desktop.wharf")
backend = wharf_backend("--presenter", "zenity")
zenity_mapped, _ = series()
stop(backend, "org.freedesktop.impl.portal.desktop.wharf")
frontend.stop()

print(f"portal peer xdg-desktop-portal-gtk, OpenFile -> its window mapped, p50 over {RUNS}: {peer_p50:.1f} ms "
      f"(range {min(gtk_mapped):.1f}-{max(gtk_mapped):.1f})")
print(f"portal xterm window, OpenFile -> the xterm mapped, p50 over {RUNS}: {p50(xterm_mapped):.1f} ms "
      f"(range {min(xterm_mapped):.1f}-{max(xterm_mapped):.1f}; xterm starts for each dialog)")
print(f"portal terminal picker, OpenFile -> its first frame in the xterm, p50 over {RUNS}: {p50(xterm_framed):.1f} ms, "
      f"{p50(xterm_framed) / peer_p50:.1f}x the GTK backend's window (target < 100 ms)")
print(f"portal zenity window, OpenFile -> zenity's window mapped, p50 over {RUNS}: {p50(zenity_mapped):.1f} ms "
      f"(range {min(zenity_mapped):.1f}-{max(zenity_mapped):.1f}; zenity starts GTK for each dialog)")
sys.stdout.flush()
