"""Wharf as xdg-desktop-portal's FileChooser backend, through the real frontend.

Run by Tests/portal/run.sh inside a private session bus (dbus-run-session) under Xvfb, with
Debian's python3 and its gi (python3-gi): each test starts `wharf portal` with a script
presenter answering as a person would, and calls the real xdg-desktop-portal frontend (or,
for calls the frontend itself would never pass on, the backend directly), waiting for the
Response signal or the backend's answer.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from processes import children  # noqa: E402

WHARF = os.environ["WHARF"]
PORTAL_FILE = os.environ["PORTAL_FILE"]
RIG = os.environ["PORTAL_RIG"]
BACKEND = "org.freedesktop.impl.portal.desktop.wharf"
DESKTOP = "/org/freedesktop/portal/desktop"
IMPL = "org.freedesktop.impl.portal.FileChooser"


def bus():
    return Gio.bus_get_sync(Gio.BusType.SESSION, None)


def name_has_owner(name):
    reply = bus().call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                            GLib.Variant("(s)", (name,)), GLib.VariantType("(b)"), 0, 5000, None)
    return reply.unpack()[0]


def wait_for(condition, seconds=10, what="condition"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def uri(path):
    return "file://" + urllib.parse.quote(os.fsencode(path))


def ay(path):
    return GLib.Variant("ay", os.fsencode(path) + b"\0")


def stop_activated():
    """Stops the backend D-Bus activation started, if it is running."""
    if not name_has_owner(BACKEND):
        return
    pid = bus().call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                          GLib.Variant("(s)", (BACKEND,)), None, 0, 5000, None).unpack()[0]
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not name_has_owner(BACKEND), what="the activated backend to stop")


class Frontend:
    """The real xdg-desktop-portal, finding Wharf's .portal file and nothing else."""

    def __init__(self, desktop="wharf", others=()):
        self.dir = tempfile.mkdtemp(dir=RIG, prefix="portals-")
        with open(PORTAL_FILE) as source, open(os.path.join(self.dir, "wharf.portal"), "w") as copy:
            copy.write(source.read())
        for name, use_in in others:
            with open(os.path.join(self.dir, name + ".portal"), "w") as other:
                other.write(f"[portal]\nDBusName=org.freedesktop.impl.portal.desktop.{name}\n"
                            f"Interfaces=org.freedesktop.impl.portal.FileChooser;\nUseIn={use_in}\n")
        env = dict(os.environ, XDG_DESKTOP_PORTAL_DIR=self.dir, XDG_CURRENT_DESKTOP=desktop)
        self.log = open(os.path.join(RIG, "frontend.log"), "w")
        self.process = subprocess.Popen(["/usr/libexec/xdg-desktop-portal", "--replace", "--verbose"], env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(lambda: name_has_owner("org.freedesktop.portal.Desktop"), what="the frontend")
        # Starting, the frontend asks for the backend's properties, and the bus activates it:
        # stopped, so that each test starts its own.
        stop_activated()

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


class Backend:
    """`wharf portal` answering with a script presenter (each call plays it from its first step)."""

    def __init__(self, steps, presenter=None, extra=(), env=None):
        handle, self.script = tempfile.mkstemp(dir=RIG, suffix=".json")
        with os.fdopen(handle, "w") as out:
            json.dump(steps, out)
        self.log_path = self.script + ".log"
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [WHARF, "portal", "--presenter", presenter or ("script:" + self.script), "--log-level", "info",
             "--state-dir", ":memory:", *extra], stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        wait_for(lambda: name_has_owner(BACKEND) or self.process.poll() is not None, what="wharf portal")
        assert self.process.poll() is None, self.text()

    def text(self):
        with open(self.log_path) as log:
            return log.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(10)
        self.log.close()
        wait_for(lambda: not name_has_owner(BACKEND), what="the backend's name to go")
        return self.process.returncode


class Call:
    """A call of org.freedesktop.portal.FileChooser through the frontend, waiting for Response."""

    counter = 0

    def __init__(self, method, options=None, title="Pick", parent=""):
        Call.counter += 1
        self.connection = bus()
        token = f"wharf{Call.counter}"
        sender = self.connection.get_unique_name()[1:].replace(".", "_")
        self.path = f"/org/freedesktop/portal/desktop/request/{sender}/{token}"
        self.done = threading.Event()
        self.response = None
        self.connection.signal_subscribe("org.freedesktop.portal.Desktop", "org.freedesktop.portal.Request", "Response",
                                         self.path, None, Gio.DBusSignalFlags.NO_MATCH_RULE, self._on_response)
        options = dict(options or {})
        options["handle_token"] = GLib.Variant("s", token)
        self.handle = self.connection.call_sync(
            "org.freedesktop.portal.Desktop", DESKTOP, "org.freedesktop.portal.FileChooser", method,
            GLib.Variant("(ssa{sv})", (parent, title, options)), GLib.VariantType("(o)"), 0, 10000, None).unpack()[0]
        assert self.handle == self.path, (self.handle, self.path)

    def _on_response(self, connection, sender, path, interface, signal_name, parameters):
        self.response = parameters.unpack()
        self.done.set()

    def wait(self, seconds=20):
        context = GLib.MainContext.default()
        deadline = time.monotonic() + seconds
        while not self.done.is_set() and time.monotonic() < deadline:
            context.iteration(False)
            time.sleep(0.005)
        assert self.done.is_set(), f"no Response for {self.path}"
        return self.response

    def close(self):
        self.connection.call_sync("org.freedesktop.portal.Desktop", self.path, "org.freedesktop.portal.Request", "Close",
                                  None, None, 0, 5000, None)


def direct(method, options, handle=None, timeout=20000, signature="(osssa{sv})", args=None):
    """Calls the backend itself, as the frontend does; returns (response, results) or raises."""
    Call.counter += 1
    handle = handle or f"/org/freedesktop/portal/desktop/request/direct/t{Call.counter}"
    value = GLib.Variant(signature, args if args is not None else (handle, "org.example.App", "", "Title", options))
    return bus().call_sync(BACKEND, DESKTOP, IMPL, method, value, None, 0, timeout, None).unpack()


class PortalCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.frontend = Frontend()
        cls.files = tempfile.mkdtemp(dir=RIG, prefix="files-")
        for name, data in [("a.txt", b"alpha\n"), ("b.txt", b"beta\n"), ("A.TXT", b"upper\n"),
                           ("pic.png", b"\x89PNG\r\n\x1a\n" + bytes(32))]:
            with open(os.path.join(cls.files, name), "wb") as out:
                out.write(data)
        os.mkdir(os.path.join(cls.files, "folder"))

    @classmethod
    def tearDownClass(cls):
        cls.frontend.stop()

    def setUp(self):
        self.backend = None

    def tearDown(self):
        if self.backend:
            self.assertEqual(self.backend.stop(), 0, self.backend.text())

    def start(self, steps, **kwargs):
        self.backend = Backend(steps, **kwargs)
        return self.backend

    def path(self, name):
        return os.path.join(self.files, name)


class PortalTests(PortalCase):
    # MARK: OpenFile

    def test_open_one_file(self):
        self.start([{"expect": {"kind": "importer", "title": "Pick a note", "confirmationLabel": "Open it",
                                "allowsMultipleSelection": False}},
                    {"choose": [self.path("a.txt")]}])
        response, results = Call("OpenFile", {"accept_label": GLib.Variant("s", "_Open it")}, title="Pick a note").wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(self.path("a.txt"))])

    def test_open_several_files(self):
        self.start([{"expect": {"allowsMultipleSelection": True}}, {"choose": [self.path("a.txt"), self.path("b.txt")]}])
        response, results = Call("OpenFile", {"multiple": GLib.Variant("b", True)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(self.path("a.txt")), uri(self.path("b.txt"))])

    def test_open_file_takes_files_not_folders(self):
        self.start([{"choose": [self.path("folder")]}])
        response, results = Call("OpenFile", {}).wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertEqual(results["uris"], [])
        self.assertIn("public.data", self.backend.text())

    def test_open_folder(self):
        self.start([{"expect": {"allowedContentTypes": ["public.folder"]}}, {"choose": [self.path("folder")]}])
        response, results = Call("OpenFile", {"directory": GLib.Variant("b", True)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(self.path("folder"))])

    def test_a_single_mime_filter_is_the_dialogs_types(self):
        self.start([{"expect": {"allowedContentTypes": ["public.plain-text"]}}, {"choose": [self.path("a.txt")]}])
        text = ("Text", [(1, "text/plain")])
        response, results = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [text]),
                                              "current_filter": GLib.Variant("(sa(us))", text)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["current_filter"], text)

    def test_current_filter_is_selected_at_first_and_enforced(self):
        images, text = ("Images", [(1, "image/*")]), ("Text", [(1, "text/plain")])
        self.start([{"expect": {"allowedContentTypes": ["public.data"]}}, {"choose": [self.path("a.txt")]}])
        response, results = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [images, text]),
                                              "current_filter": GLib.Variant("(sa(us))", text)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["current_filter"], text)
        self.backend.stop()
        self.start([{"choose": [self.path("pic.png")]}])
        response, _ = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [images, text]),
                                        "current_filter": GLib.Variant("(sa(us))", text)}).wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertIn("does not match the filter \u201cText\u201d", self.backend.text())

    def test_the_person_selects_the_second_filter_and_sets_choices(self):
        images, notes = ("Images", [(1, "image/*")]), ("Notes", [(0, "*.txt")])
        choices = [("encoding", "Encoding", [("utf8", "UTF-8"), ("latin1", "Latin-1")], "utf8"),
                   ("readonly", "Read only", [], "false"), ("eol", "Line ends", [("lf", "LF"), ("crlf", "CRLF")], "")]
        self.start([{"selectFilter": "Notes"}, {"setChoice": {"id": "encoding", "value": "latin1"}},
                    {"setChoice": {"id": "readonly", "value": "true"}}, {"choose": [self.path("a.txt")]}])
        response, results = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [images, notes]),
                                              "choices": GLib.Variant("a(ssa(ss)s)", choices)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(self.path("a.txt"))])
        self.assertEqual(results["current_filter"], notes)
        self.assertEqual(results["choices"], [("encoding", "latin1"), ("readonly", "true"), ("eol", "lf")])

    def test_a_pick_outside_the_selected_filter_is_refused(self):
        images, notes = ("Images", [(1, "image/*")]), ("Notes", [(0, "*.txt")])
        self.start([{"selectFilter": "Images"}, {"choose": [self.path("a.txt")]}])
        response, results = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [notes, images])}).wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertEqual(results["uris"], [])
        self.assertIn("does not match the filter \u201cImages\u201d", self.backend.text())

    def test_a_choice_value_the_choice_does_not_have_is_refused(self):
        choices = [("encoding", "Encoding", [("utf8", "UTF-8")], "utf8")]
        self.start([{"setChoice": {"id": "encoding", "value": "ebcdic"}}, {"choose": [self.path("a.txt")]}])
        response, _ = Call("OpenFile", {"choices": GLib.Variant("a(ssa(ss)s)", choices)}).wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertIn("ebcdic is not one of utf8", self.backend.text())

    def test_mime_filter_refuses_a_wrong_pick(self):
        self.start([{"choose": [self.path("a.txt")]}])
        response, results = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [("Images", [(1, "image/*")])])}).wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertEqual(results["uris"], [])
        self.assertIn("public.image", self.backend.text())

    def test_glob_filter_is_case_sensitive_and_refuses_a_wrong_pick(self):
        notes = ("Notes", [(0, "*.txt")])
        self.start([{"choose": [self.path("A.TXT")]}])
        response, _ = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [notes])}).wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertIn("A.TXT", self.backend.text())
        self.assertIn("does not match the filter \u201cNotes\u201d", self.backend.text())
        self.backend.stop()
        self.start([{"choose": [self.path("a.txt")]}])
        response, results = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [notes])}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(self.path("a.txt"))])
        self.assertEqual(results["current_filter"], notes)

    def test_choices_come_back_with_their_defaults(self):
        self.start([{"choose": [self.path("a.txt")]}])
        choices = [("encoding", "Encoding", [("utf8", "UTF-8"), ("latin1", "Latin-1")], "latin1"),
                   ("readonly", "Read only", [], "true")]
        response, results = Call("OpenFile", {"choices": GLib.Variant("a(ssa(ss)s)", choices)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["choices"], [("encoding", "latin1"), ("readonly", "true")])

    # MARK: SaveFile, SaveFiles

    def test_save_file_with_current_name_writes_nothing(self):
        target = os.path.join(self.path("folder"), "report.txt")
        self.start([{"expect": {"kind": "exporter", "filename": "report.txt", "directory": uri(self.path("folder"))}},
                    {"save": {}}])
        response, results = Call("SaveFile", {"current_name": GLib.Variant("s", "report.txt"),
                                              "current_folder": ay(self.path("folder"))}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(target)])
        self.assertFalse(os.path.exists(target), "SaveFile created the file")

    def test_save_file_returns_the_choices_the_person_set(self):
        target = os.path.join(self.path("folder"), "chosen.txt")
        choices = [("eol", "Line ends", [("lf", "LF"), ("crlf", "CRLF")], "lf"), ("bom", "Byte order mark", [], "false")]
        self.start([{"setChoice": {"id": "eol", "value": "crlf"}}, {"save": {}}])
        response, results = Call("SaveFile", {"current_name": GLib.Variant("s", "chosen.txt"),
                                              "current_folder": ay(self.path("folder")),
                                              "choices": GLib.Variant("a(ssa(ss)s)", choices)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(target)])
        self.assertEqual(results["choices"], [("eol", "crlf"), ("bom", "false")])

    def test_save_file_current_file_replaced_only_when_agreed(self):
        existing = self.path("b.txt")
        self.start([{"expect": {"filename": "b.txt"}}, {"save": {"overwrite": True}}])
        response, results = Call("SaveFile", {"current_file": ay(existing)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(existing)])
        with open(existing, "rb") as data:
            self.assertEqual(data.read(), b"beta\n")
        self.backend.stop()
        self.start([{"save": {}}])
        response, results = Call("SaveFile", {"current_file": ay(existing)}).wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertIn("already exists", self.backend.text())

    def test_save_files_into_a_folder(self):
        folder = self.path("folder")
        self.start([{"save": {"path": folder}}])
        response, results = Call("SaveFiles", {"files": GLib.Variant("aay", [b"x.txt\0", b"y.txt\0"]),
                                               "current_folder": ay(folder)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(os.path.join(folder, "x.txt")), uri(os.path.join(folder, "y.txt"))])
        self.assertFalse(os.path.exists(os.path.join(folder, "x.txt")))

    def test_save_files_with_one_file_asks_for_a_folder(self):
        # SaveFiles chooses a folder even for one file: the answer is that folder, and the
        # file keeps its name; an answer naming a file (a presenter with a name field) is
        # taken as it is, as the portal lets SaveFiles' names change.
        folder = self.path("folder")
        self.start([{"expect": {"filename": "only.txt"}}, {"save": {"path": folder}}])
        response, results = Call("SaveFiles", {"files": GLib.Variant("aay", [b"only.txt\0"]),
                                               "current_folder": ay(folder)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(os.path.join(folder, "only.txt"))])
        self.backend.stop()
        self.start([{"save": {"path": os.path.join(folder, "renamed.txt")}}])
        response, results = Call("SaveFiles", {"files": GLib.Variant("aay", [b"only.txt\0"]),
                                               "current_folder": ay(folder)}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(os.path.join(folder, "renamed.txt"))])
        self.assertEqual(os.listdir(folder), [])

    def test_save_file_holds_the_name_to_the_glob_filter(self):
        folder = self.path("folder")
        notes = ("Notes", [(0, "*.txt")])
        options = {"filters": GLib.Variant("a(sa(us))", [notes]), "current_folder": ay(folder)}
        # The name given matches the filter's glob case-sensitively, on its bytes: REPORT.TXT is refused.
        for name in ["report.md", "REPORT.TXT"]:
            self.start([{"save": {"path": os.path.join(folder, name)}}])
            response, results = Call("SaveFile", dict(options, current_name=GLib.Variant("s", "report.txt"))).wait()
            self.assertEqual(response, 2, self.backend.text())
            self.assertIn(name, self.backend.text())
            self.assertIn("does not enable a file of this name", self.backend.text())
            self.backend.stop()
        self.start([{"save": {"path": os.path.join(folder, "report.txt")}}])
        response, results = Call("SaveFile", dict(options, current_name=GLib.Variant("s", "report.md"))).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(os.path.join(folder, "report.txt"))])
        self.assertEqual(results["current_filter"], notes)

    def test_save_file_holds_the_name_to_the_filter_in_force_and_its_mime_types(self):
        folder = self.path("folder")
        text, images = ("Text", [(1, "text/plain")]), ("Images", [(1, "image/*")])
        filters = GLib.Variant("a(sa(us))", [text, images])
        # current_filter is the filter in force: an image's name, not a text file's.
        self.start([{"save": {"path": os.path.join(folder, "notes.txt")}}])
        response, _ = Call("SaveFile", {"filters": filters, "current_filter": GLib.Variant("(sa(us))", images),
                                        "current_name": GLib.Variant("s", "notes.txt")}).wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertIn("notes.txt", self.backend.text())
        self.backend.stop()
        self.start([{"save": {"path": os.path.join(folder, "photo.png")}}])
        response, results = Call("SaveFile", {"filters": filters, "current_filter": GLib.Variant("(sa(us))", images),
                                              "current_name": GLib.Variant("s", "notes.txt")}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(os.path.join(folder, "photo.png"))])
        self.assertEqual(results["current_filter"], images)
        self.assertFalse(os.path.exists(os.path.join(folder, "photo.png")))
        self.backend.stop()
        # Without current_filter, the first filter (plain text) is in force.
        self.start([{"save": {"path": os.path.join(folder, "photo.png")}}])
        response, _ = Call("SaveFile", {"filters": filters, "current_name": GLib.Variant("s", "x")}).wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertIn("photo.png", self.backend.text())

    def test_save_files_takes_no_filters(self):
        # SaveFiles has no filters in the portal's interface (the frontend does not pass them
        # on): the names are the app's, the person chooses a folder.
        folder = self.path("folder")
        self.start([{"save": {"path": folder}}])
        response, results = Call("SaveFiles", {"files": GLib.Variant("aay", [b"x.md\0", b"y.md\0"]), "current_folder": ay(folder),
                                               "filters": GLib.Variant("a(sa(us))", [("Notes", [(0, "*.txt")])])}).wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(os.path.join(folder, "x.md")), uri(os.path.join(folder, "y.md"))])
        self.assertNotIn("current_filter", results)

    def test_dbus_activation_starts_the_backend(self):
        # No backend running: the frontend's call activates one through the service file.
        with open(os.environ["PORTAL_ACTIVATION_SCRIPT"], "w") as script:
            json.dump([{"choose": [self.path("b.txt")]}], script)
        self.assertFalse(name_has_owner(BACKEND))
        response, results = Call("OpenFile").wait()
        self.assertEqual(response, 0)
        self.assertEqual(results["uris"], [uri(self.path("b.txt"))])
        stop_activated()

    # MARK: Ending

    def test_cancel_is_response_1(self):
        self.start([{"dismiss": True}])
        response, results = Call("OpenFile").wait()
        self.assertEqual(response, 1, self.backend.text())
        self.assertEqual(results["uris"], [])

    def test_close_from_the_app_ends_the_dialog(self):
        self.start([{"delayMs": 60000}, {"choose": [self.path("a.txt")]}])
        call = Call("OpenFile")
        time.sleep(0.3)
        call.close()
        wait_for(lambda: "response 2" in self.backend.text(), what="the backend to answer the closed call")
        # And through the backend directly: Close on the Request answers the call with 2.
        result = {}
        handle = "/org/freedesktop/portal/desktop/request/direct/closing"
        thread = threading.Thread(target=lambda: result.update(answer=direct("OpenFile", {}, handle=handle)))
        thread.start()
        wait_for(lambda: handle in self.introspect_children(), what="the Request object")
        bus().call_sync(BACKEND, handle, "org.freedesktop.impl.portal.Request", "Close", None, None, 0, 5000, None)
        thread.join(10)
        self.assertEqual(result["answer"], (2, {}))

    def introspect_children(self):
        try:
            xml = bus().call_sync(BACKEND, "/org/freedesktop/portal/desktop/request/direct",
                                  "org.freedesktop.DBus.Introspectable", "Introspect", None, None, 0, 2000, None).unpack()[0]
        except GLib.Error:
            return ""
        node = Gio.DBusNodeInfo.new_for_xml(xml)
        return " ".join("/org/freedesktop/portal/desktop/request/direct/" + n.path for n in node.nodes)

    def test_two_calls_at_once_and_the_bus_stays_free(self):
        self.start([{"delayMs": 1500}, {"choose": [self.path("a.txt")]}])
        first, second = Call("OpenFile"), Call("OpenFile")
        # While both dialogs are open, the backend answers at once.
        version = bus().call_sync(BACKEND, DESKTOP, "org.freedesktop.DBus.Properties", "Get", GLib.Variant("(ss)", (IMPL, "version")),
                                  None, 0, 1000, None).unpack()[0]
        self.assertEqual(version, 4)
        self.assertFalse(first.done.is_set() or second.done.is_set())
        self.assertEqual(first.wait()[0], 0)
        self.assertEqual(second.wait()[0], 0)


class ParentWindowTests(PortalCase):
    """`parent_window` reaches the presenters that use it: kdialog is attached to an `x11:`
    window (a stand-in kdialog on PATH records its arguments and answers)."""

    def kdialog_backend(self):
        folder = tempfile.mkdtemp(dir=RIG, prefix="fake-kdialog-")
        self.arguments = os.path.join(folder, "arguments")
        with open(os.path.join(folder, "kdialog"), "w") as fake:
            fake.write(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > '{self.arguments}'\nprintf '%s\\n' '{self.path('a.txt')}'\n")
        os.chmod(os.path.join(folder, "kdialog"), 0o755)
        env = dict(os.environ, PATH=folder + ":" + os.environ["PATH"])
        return self.start([], presenter="kdialog", env=env)

    def words(self):
        with open(self.arguments) as arguments:
            return arguments.read().split("\n")

    def test_an_x11_parent_is_attached_unless_not_modal(self):
        self.kdialog_backend()
        response, results = Call("OpenFile", parent="x11:2a", title="Attached").wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(self.path("a.txt"))])
        words = self.words()
        self.assertEqual(words[words.index("--attach") + 1], "0x2a", words)
        self.assertIn("Attached", " ".join(words))
        response, _ = Call("OpenFile", {"modal": GLib.Variant("b", False)}, parent="x11:2a").wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertNotIn("--attach", self.words())

    def test_a_wayland_parent_is_logged_and_ignored(self):
        self.kdialog_backend()
        response, _ = direct("OpenFile", {}, args=("/org/freedesktop/portal/desktop/request/direct/w1", "", "wayland:abc", "T", {}))
        self.assertEqual(response, 0, self.backend.text())
        self.assertNotIn("--attach", self.words())
        self.assertIn("parent window wayland:abc ignored", self.backend.text())


class DaemonPresenterTests(PortalCase):
    """`auto` first asks the Wharf daemon (`wharf --listen`), when a presenter connection is
    registered with it (an editor drawing every app's dialogs); never the daemon's own presenter,
    which could be the portal."""

    def daemon(self):
        script = os.path.join(RIG, "daemon-script.json")
        with open(script, "w") as out:
            json.dump([{"choose": [self.path("b.txt")]}], out)
        socket_path = os.path.join(os.environ["XDG_RUNTIME_DIR"], "wharf", "wharf.sock")
        daemon = subprocess.Popen([WHARF, "--listen", "--state-dir", ":memory:", "--presenter", "script:" + script],
                                  stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (daemon.terminate(), daemon.wait(10)))
        wait_for(lambda: os.path.exists(socket_path), what="the daemon's socket")
        return socket_path

    def presenter_connection(self, socket_path, pick):
        import socket as sockets
        connection = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
        connection.connect(socket_path)
        self.addCleanup(connection.close)
        stream = connection.makefile("rwb", buffering=0)

        def send(message):
            body = json.dumps(message).encode()
            stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

        def receive():
            length = 0
            while True:
                line = stream.readline()
                if line in (b"\r\n", b""):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            return json.loads(stream.read(length)) if length else None

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"clientInfo": {"name": "test-presenter"}, "role": "presenter",
                         "capabilities": {"presentsDialogs": True}}})
        while (message := receive()) and message.get("id") != 1:
            pass

        def serve():
            while (message := receive()) is not None:
                if message.get("method") == "presenter/show":
                    send({"jsonrpc": "2.0", "id": 100, "method": "dialog/choose",
                          "params": {"dialogId": message["params"]["dialogId"], "urls": [pick]}})
        threading.Thread(target=serve, daemon=True).start()

    def test_the_daemons_presenter_connection_draws_the_dialog(self):
        socket_path = self.daemon()
        self.presenter_connection(socket_path, self.path("a.txt"))
        self.start([], presenter="auto")
        response, results = Call("OpenFile").wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(self.path("a.txt"))])
        self.assertIn("shown by the daemon's presenter connection", self.backend.text())

    def test_without_a_presenter_connection_the_daemon_is_not_asked(self):
        self.daemon()
        # No zenity or kdialog either: the call fails rather than reaching the daemon's own presenter.
        env = dict(os.environ, PATH="/nonexistent")
        self.start([], presenter="auto", env=env)
        response, results = Call("OpenFile").wait()
        self.assertEqual(response, 2, self.backend.text())
        self.assertNotIn("daemon's presenter connection", self.backend.text())


class GtkAppTests(PortalCase):
    """A real GTK app, asking for a file with Gtk.FileChooserNative and GTK_USE_PORTAL=1."""

    APP = """
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk
dialog = Gtk.FileChooserNative.new("Open a note", None, Gtk.FileChooserAction.OPEN, "_Open", "_Cancel")
response = dialog.run()
print(response == Gtk.ResponseType.ACCEPT, dialog.get_filename())
"""

    def test_gtk_file_chooser_native_gets_its_file(self):
        self.start([{"expect": {"title": "Open a note"}}, {"choose": [self.path("a.txt")]}])
        env = dict(os.environ, GTK_USE_PORTAL="1")
        result = subprocess.run(["/usr/bin/python3", "-c", self.APP], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(result.stdout.strip(), f"True {self.path('a.txt')}", result.stderr + self.backend.text())


class BadInputTests(PortalCase):
    """Calls the frontend would never pass on, made to the backend directly: malformed ones are
    InvalidArgs naming the option, failures are response 2, and the backend keeps answering."""

    def assertInvalid(self, option, method="OpenFile", options=None, **kwargs):
        with self.assertRaises(GLib.Error) as raised:
            direct(method, options or {}, **kwargs)
        self.assertIn("org.freedesktop.DBus.Error.InvalidArgs", raised.exception.message)
        self.assertIn(option, raised.exception.message)

    def assertStillAnswers(self):
        self.assertEqual(direct("OpenFile", {})[0], 0, self.backend.text())

    def test_options_of_the_wrong_type(self):
        self.start([{"choose": [self.path("a.txt")]}])
        self.assertInvalid("multiple", options={"multiple": GLib.Variant("s", "yes")})
        self.assertInvalid("filters", options={"filters": GLib.Variant("as", ["*.txt"])})
        self.assertInvalid("current_filter", options={"current_filter": GLib.Variant("s", "Text")})
        self.assertInvalid("files", method="SaveFiles", options={"files": GLib.Variant("as", ["x.txt"])})
        self.assertInvalid("current_name", method="SaveFile", options={"current_name": GLib.Variant("ay", b"x\0")})
        self.assertInvalid("filters", options={"filters": GLib.Variant("a(sa(us))", [("Odd", [(7, "*.txt")])])})
        self.assertStillAnswers()

    def test_unknown_options_are_ignored_and_logged(self):
        self.start([{"choose": [self.path("a.txt")]}])
        response, results = direct("OpenFile", {"frobnicate": GLib.Variant("i", 3), "current_name": GLib.Variant("s", "x")})
        self.assertEqual(response, 0)
        self.assertEqual(results["uris"], [uri(self.path("a.txt"))])
        self.assertIn("unknown options ignored: frobnicate, current_name", self.backend.text())

    def test_ten_thousand_filters_and_an_empty_glob(self):
        self.start([{"choose": [self.path("a.txt")]}])
        many = [(f"F{i}", [(0, f"*.{i}")]) for i in range(10000)]
        self.assertInvalid("filters", options={"filters": GLib.Variant("a(sa(us))", many)})
        self.assertInvalid("filters[1]", options={"filters": GLib.Variant("a(sa(us))", [("T", [(0, "*.txt")]), ("E", [(0, "")])])})
        self.assertInvalid("current_filter", options={"current_filter": GLib.Variant("(sa(us))", ("E", [(1, "")]))})
        # As many filters as a dialog offers, and a current_filter outside them to add.
        most = [(f"F{i}", [(0, f"*.{i}")]) for i in range(1024)]
        self.assertInvalid("option current_filter: not one of the 1024 filters", options={
            "filters": GLib.Variant("a(sa(us))", most), "current_filter": GLib.Variant("(sa(us))", ("Text", [(0, "*.txt")]))})
        self.assertStillAnswers()

    def test_current_folder_not_terminated_or_not_a_folder(self):
        self.start([{"expect": {"directory": uri(os.environ["HOME"])}}, {"choose": [self.path("a.txt")]}])
        self.assertInvalid("current_folder", options={"current_folder": GLib.Variant("ay", os.fsencode(self.files))})
        self.assertInvalid("current_folder", options={"current_folder": GLib.Variant("ay", b"relative\0")})
        self.assertInvalid("current_file", method="SaveFile", options={"current_file": GLib.Variant("ay", b"/tmp/x\0y\0")})
        # A folder that is not there: the dialog opens in the home folder, and says so in the log.
        response, _ = direct("OpenFile", {"current_folder": ay(self.path("a.txt"))})
        self.assertEqual(response, 0, self.backend.text())
        self.assertIn("not an existing folder", self.backend.text())

    def test_handles_that_cannot_be_a_request(self):
        self.start([{"choose": [self.path("a.txt")]}])
        self.assertInvalid("handle", signature="(ssssa{sv})", args=("/not/an/object/path", "", "", "", {}))
        self.assertInvalid("handle", handle=DESKTOP)
        self.assertInvalid("SaveFiles", method="SaveFiles", options={})
        self.assertStillAnswers()

    def test_close_on_a_finished_request(self):
        self.start([{"choose": [self.path("a.txt")]}])
        handle = "/org/freedesktop/portal/desktop/request/direct/finished"
        self.assertEqual(direct("OpenFile", {}, handle=handle)[0], 0)
        with self.assertRaises(GLib.Error):
            bus().call_sync(BACKEND, handle, "org.freedesktop.impl.portal.Request", "Close", None, None, 0, 5000, None)
        self.assertStillAnswers()

    def test_five_hundred_calls_at_once(self):
        self.start([{"choose": [self.path("a.txt")]}])
        answers = []
        context = GLib.MainContext.default()
        connection = bus()

        def answered(source, result):
            try:
                answers.append(source.call_finish(result).unpack()[0])
            except GLib.Error as error:
                answers.append(error.message)

        for index in range(500):
            value = GLib.Variant("(osssa{sv})", (f"/org/freedesktop/portal/desktop/request/many/t{index}", "", "", "", {}))
            connection.call(BACKEND, DESKTOP, IMPL, "OpenFile", value, None, 0, 120000, None, answered)
        deadline = time.monotonic() + 120
        while len(answers) < 500 and time.monotonic() < deadline:
            context.iteration(True)
        self.assertEqual(answers, [0] * 500, self.backend.text()[-2000:])
        self.assertStillAnswers()

    def test_the_presenter_killed_mid_dialog(self):
        self.start([], presenter="zenity")
        result = {}
        thread = threading.Thread(target=lambda: result.update(answer=direct("OpenFile", {}, timeout=30000)))
        thread.start()
        zenity = []
        wait_for(lambda: zenity.extend(children(self.backend.process.pid, "zenity")) or zenity, what="zenity")
        os.kill(zenity[0], signal.SIGKILL)
        thread.join(20)
        self.assertEqual(result.get("answer"), (2, {}), self.backend.text())
        self.assertIn("failed", self.backend.text())

    def test_stopping_answers_every_open_call(self):
        self.start([{"delayMs": 60000}, {"choose": [self.path("a.txt")]}])
        answers = []
        threads = [threading.Thread(target=lambda: answers.append(direct("OpenFile", {}))) for _ in range(3)]
        for thread in threads:
            thread.start()
        wait_for(lambda: len(self.open_requests()) == 3, what="three open calls")
        self.assertEqual(self.backend.stop(), 0)
        for thread in threads:
            thread.join(10)
        self.assertEqual(answers, [(2, {})] * 3)
        self.backend = None

    def open_requests(self):
        try:
            xml = bus().call_sync(BACKEND, "/org/freedesktop/portal/desktop/request/direct",
                                  "org.freedesktop.DBus.Introspectable", "Introspect", None, None, 0, 2000, None).unpack()[0]
        except GLib.Error:
            return []
        return Gio.DBusNodeInfo.new_for_xml(xml).nodes

    def test_the_frontend_disconnecting(self):
        self.start([{"delayMs": 60000}, {"choose": [self.path("a.txt")]}])
        address = os.environ["DBUS_SESSION_BUS_ADDRESS"]
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        leaving = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
        value = GLib.Variant("(osssa{sv})", ("/org/freedesktop/portal/desktop/request/gone/t1", "", "", "", {}))
        leaving.call(BACKEND, DESKTOP, IMPL, "OpenFile", value, None, 0, -1, None, None)
        leaving.flush_sync(None)
        time.sleep(0.3)
        leaving.close_sync(None)
        wait_for(lambda: "left the bus" in self.backend.text() and "response 2" in self.backend.text(),
                 what="the backend to end the orphaned dialog")
        version = bus().call_sync(BACKEND, DESKTOP, "org.freedesktop.DBus.Properties", "Get",
                                  GLib.Variant("(ss)", (IMPL, "version")), None, 0, 2000, None).unpack()[0]
        self.assertEqual(version, 4)


class TerminalWindowTests(PortalCase):
    """`--presenter terminal`: each dialog in a window of its own (xterm here), running
    `wharf portal --run-dialog` there. The terminal picker itself is drawn by the terminal
    presenter; here a wrapper given as --terminal swaps it for the script presenter inside the
    window, so the window, its command and its answer are what is tested."""

    WRAPPER = """#!/usr/bin/python3
import json, os, sys
arguments = sys.argv[1:]
with open(os.environ["WRAPPER_LOG"], "a") as log:
    log.write(json.dumps(arguments) + "\\n")
arguments = ["script:" + os.environ["WRAPPER_SCRIPT"] if word == "terminal" and arguments[i - 1] == "--presenter" else word
             for i, word in enumerate(arguments)]
os.execv("/usr/bin/xterm", ["xterm"] + arguments)
"""

    def window_backend(self, steps):
        # Named xterm, so that wharf speaks to it as to xterm; it runs the real one.
        os.makedirs(os.path.join(RIG, "wrapper"), exist_ok=True)
        wrapper = os.path.join(RIG, "wrapper", "xterm")
        with open(wrapper, "w") as out:
            out.write(self.WRAPPER)
        os.chmod(wrapper, 0o755)
        self.log = os.path.join(RIG, "terminal-wrapper.log")
        open(self.log, "w").close()
        script = os.path.join(RIG, "window-script.json")
        with open(script, "w") as out:
            json.dump(steps, out)
        os.environ.update(WRAPPER_LOG=self.log, WRAPPER_SCRIPT=script)
        return self.start([], presenter="terminal", extra=("--terminal", wrapper))

    def test_a_dialog_in_a_terminal_window(self):
        self.window_backend([{"expect": {"title": "Pick in a window"}}, {"choose": [self.path("a.txt")]}])
        response, results = Call("OpenFile", title="Pick in a window").wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(self.path("a.txt"))])
        with open(self.log) as log:
            window = json.loads(log.readline())
        self.assertEqual(window[:2], ["-T", "Pick in a window"])
        self.assertEqual(window[2:5], ["-e", os.path.realpath(WHARF), "portal"])
        self.assertIn("--run-dialog", window)
        self.assertEqual(window[window.index("--presenter") + 1], "terminal")

    def test_close_closes_the_window(self):
        self.window_backend([{"delayMs": 60000}, {"choose": [self.path("a.txt")]}])
        result = {}
        handle = "/org/freedesktop/portal/desktop/request/direct/window"
        thread = threading.Thread(target=lambda: result.update(answer=direct("OpenFile", {}, handle=handle, timeout=30000)))
        thread.start()
        windows = []
        wait_for(lambda: windows.extend(children(self.backend.process.pid, "xterm")) or windows, what="the xterm window")
        bus().call_sync(BACKEND, handle, "org.freedesktop.impl.portal.Request", "Close", None, None, 0, 5000, None)
        thread.join(20)
        self.assertEqual(result.get("answer"), (2, {}), self.backend.text())
        wait_for(lambda: not children(self.backend.process.pid, "xterm"), what="the window to close")


class XtermPickerTests(PortalCase):
    """A person answers in the xterm window `wharf portal --presenter terminal` opens for each
    call, with the real terminal picker in it (`wharf portal --run-dialog` under xterm):
    the window found with `xdotool search --sync` by the call's title, keys typed into it with
    xdotool once the picker has the terminal (its tty in raw mode). An `x11:` parent_window
    makes the xterm transient for it (WM_TRANSIENT_FOR, read with xprop)."""

    def setUp(self):
        super().setUp()
        self.start([], presenter="terminal", extra=("--terminal", "/usr/bin/xterm"))

    def window(self, title):
        """The xterm's window, once the picker in it has taken the terminal."""
        found = xdotool("search", "--sync", "--onlyvisible", "--name", "^" + title + "$").split()
        self.assertEqual(len(found), 1, found)
        dialogs = []
        wait_for(lambda: dialogs.extend(children(self.backend.process.pid, "wharf")) or dialogs, what="wharf in the window")
        wait_for(lambda: raw_mode(dialogs[0]), what="the picker to take the terminal")
        # The first frame and the folder's first page are drawn straight after.
        time.sleep(0.3)
        xdotool("windowfocus", "--sync", found[0])
        return found[0]

    def keys(self, *keys):
        xdotool("key", "--delay", "40", *keys)

    def type(self, text):
        xdotool("type", "--delay", "40", text)

    def test_open_one_file(self):
        # The frontend (1.16) does not pass OpenFile's current_folder on: the picker opens in
        # the home folder.
        home = os.environ["HOME"]
        for folder in ["Documents", "Pictures"]:
            os.makedirs(os.path.join(home, folder), exist_ok=True)
        for name in ["notes.txt", "plan.md", "photo.png", "report.pdf"]:
            with open(os.path.join(home, name), "w") as out:
                out.write(name + "\n")
        call = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [("Text", [(1, "text/plain")])])}, title="Open in xterm")
        window = self.window("Open in xterm")
        screenshot = os.environ.get("PORTAL_SCREENSHOT")
        if screenshot:
            subprocess.run(["import", "-window", window, screenshot], check=True, timeout=30)
        # A picture is not text: refused, and the picker stays open.
        self.keys("slash")
        self.type("photo")
        self.keys("Return", "Return")
        time.sleep(0.5)
        self.assertFalse(call.done.is_set(), "a pick outside the filter was answered")
        self.keys("slash")
        self.type("plan")
        self.keys("Return", "Return")
        response, results = call.wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(os.path.join(home, "plan.md"))])
        wait_for(lambda: not children(self.backend.process.pid, "xterm"), what="the window to close")

    def test_save_file_with_current_name_and_a_refused_name(self):
        folder = self.path("folder")
        notes = ("Notes", [(0, "*.txt")])
        call = Call("SaveFile", {"current_name": GLib.Variant("s", "report.md"), "current_folder": ay(folder),
                                 "filters": GLib.Variant("a(sa(us))", [notes])}, title="Save in xterm")
        self.window("Save in xterm")
        # The » row: the name field holds current_name; Enter saves it, and the filter refuses it.
        self.keys("Return", "Return")
        time.sleep(0.5)
        self.assertFalse(call.done.is_set(), "a name outside the filter was answered")
        # The dialog stayed open, in the name field: another name.
        self.keys("ctrl+u")
        self.type("report.txt")
        self.keys("Return")
        response, results = call.wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(os.path.join(folder, "report.txt"))])
        self.assertEqual(results["current_filter"], notes)
        self.assertFalse(os.path.exists(os.path.join(folder, "report.txt")), "SaveFile created the file")

    def test_save_files_into_the_folder_shown(self):
        folder = self.path("folder")
        call = Call("SaveFiles", {"files": GLib.Variant("aay", [b"one.txt\0", b"two.txt\0"]), "current_folder": ay(folder)},
                    title="Save two in xterm")
        self.window("Save two in xterm")
        self.keys("Return")
        response, results = call.wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(os.path.join(folder, "one.txt")), uri(os.path.join(folder, "two.txt"))])
        self.assertFalse(os.path.exists(os.path.join(folder, "one.txt")))

    def test_cancel_with_q_is_response_1_and_the_window_is_transient_for_the_parent(self):
        # The app's window: here the root window, which any window may be transient for.
        parent = int(subprocess.run(["xwininfo", "-root"], check=True, capture_output=True, text=True,
                                    timeout=30).stdout.split("Window id: ")[1].split()[0], 16)
        call = Call("OpenFile", title="Cancel in xterm", parent=f"x11:{parent:x}")
        window = self.window("Cancel in xterm")
        # The xterm is made transient for the app's window (WM_TRANSIENT_FOR, of type WINDOW).
        hint = subprocess.run(["xprop", "-id", window, "WM_TRANSIENT_FOR"], check=True, capture_output=True, text=True,
                              timeout=30).stdout
        self.assertEqual(hint.strip(), f"WM_TRANSIENT_FOR(WINDOW): window id # {parent:#x}")
        self.keys("q")
        response, results = call.wait()
        self.assertEqual(response, 1, self.backend.text())
        self.assertEqual(results["uris"], [])
        wait_for(lambda: not children(self.backend.process.pid, "xterm"), what="the window to close")


def xdotool(*arguments):
    return subprocess.run(["xdotool", *arguments], check=True, capture_output=True, text=True, timeout=30).stdout


def raw_mode(pid):
    """Whether the terminal of process `pid` (its standard input) is in raw mode."""
    import termios
    try:
        fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return not termios.tcgetattr(fd)[3] & termios.ICANON
    except termios.error:
        return False
    finally:
        os.close(fd)


class CheckTests(unittest.TestCase):
    """`wharf portal --check` reads the running frontend's choice the way it makes it."""

    def check(self):
        result = subprocess.run([WHARF, "portal", "--check"], capture_output=True, text=True, timeout=30)
        return result.returncode, result.stdout + result.stderr

    def test_routed_to_wharf(self):
        frontend = Frontend(others=[("gtk", "gnome")])
        try:
            status, text = self.check()
        finally:
            frontend.stop()
        self.assertEqual(status, 0, text)
        self.assertIn("yes: by UseIn= against XDG_CURRENT_DESKTOP, FileChooser calls go to wharf", text)
        self.assertIn("1.16", text)

    def test_another_backend_preferred_says_what_to_change(self):
        frontend = Frontend(desktop="GNOME", others=[("gtk", "gnome")])
        try:
            status, text = self.check()
        finally:
            frontend.stop()
        self.assertEqual(status, 1, text)
        self.assertIn("FileChooser calls go to gtk (org.freedesktop.impl.portal.desktop.gtk)", text)
        self.assertIn("XDG_CURRENT_DESKTOP=wharf:gnome", text)

    def test_no_portal_file_and_no_frontend(self):
        self.assertFalse(name_has_owner("org.freedesktop.portal.Desktop"))
        empty = tempfile.mkdtemp(dir=RIG, prefix="noportals-")
        result = subprocess.run([WHARF, "portal", "--check"], capture_output=True, text=True, timeout=30,
                                env=dict(os.environ, XDG_DESKTOP_PORTAL_DIR=empty))
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("xdg-desktop-portal is not running", result.stdout)
        self.assertIn(f"no: {empty} has no .portal file for {BACKEND}", result.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
