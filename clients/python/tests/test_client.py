"""The client's API against the real binary (and a misbehaving fake where the real one behaves)."""
import asyncio
import base64
import gc
import os
import re
import signal
import subprocess
import sys
import threading
import time
import weakref

import pytest

from wharf_client import (ConnectionLost, DialogCancelled, DialogFailed, ExportDocument, RequestError, WharfClient,
                          WharfTimeout, url_to_path)
from wharf_client.aio import AsyncWharfClient
from wharf_client.core import OutputTail, Router
from wharf_client.framing import encode

FAKE = os.path.join(os.path.dirname(__file__), "fake_wharf.py")


@pytest.fixture
def photos(tmp_path):
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
    folder = tmp_path / "photos"
    folder.mkdir()
    for name in ("a.png", "b.png"):
        (folder / name).write_bytes(png)
    (folder / "notes.txt").write_text("not a photo\n")
    return folder


def fake_launcher(mode, folder):
    """A script that runs ``python fake_wharf.py mode``, for spawn()."""
    launcher = os.path.join(str(folder), f"fake-{mode}.sh")
    with open(launcher, "w") as file:
        file.write(f"#!/bin/sh\nexec {sys.executable} {FAKE} {mode}\n")
    os.chmod(launcher, 0o755)
    return launcher


def fake(mode, folder):
    """A client of the fake server in ``mode``."""
    return WharfClient.spawn(fake_launcher(mode, folder))


def test_an_importer_with_the_script_presenter_returns_urls_and_streams_its_events(wharf_path, script, photos):
    args = script([{"expect": {"allowsMultipleSelection": True}}, {"choose": [str(photos / "a.png"), str(photos / "b.png")]}])
    with WharfClient.spawn(wharf_path, args, app="pytest") as client:
        dialog = client.present_importer(["public.image"], multiple=True, title="Photos")
        urls = dialog.result(timeout=10)
        assert urls == [(photos / "a.png").as_uri(), (photos / "b.png").as_uri()]
        assert [event.kind for event in dialog.events()] == ["presentationChanged", "completed"]
        assert dialog.events().__next__().params == {"dialogId": dialog.id, "isPresented": False}


def test_a_dismissed_dialog_raises_dialog_cancelled_with_the_reason(wharf_path, script):
    with WharfClient.spawn(wharf_path, script([{"dismiss": True}])) as client:
        dialog = client.present_importer(["public.item"])
        with pytest.raises(DialogCancelled) as raised:
            dialog.result(timeout=10)
        assert raised.value.reason == "user"
        assert dialog.cancel() is False, "cancelling an ended dialog answers false"


def test_access_is_balanced_even_when_the_block_raises(wharf_path, script, photos):
    with WharfClient.spawn(wharf_path, script([{"choose": [str(photos / "notes.txt")]}])) as client:
        [url] = client.present_importer(["public.plain-text"]).result(timeout=10)
        with client.access(url) as path:
            assert open(path).read() == "not a photo\n"
            assert client.list_access().active_leases == 1
        with pytest.raises(ZeroDivisionError):
            with client.access(url):
                1 / 0
        assert client.list_access().active_leases == 0
        with pytest.raises(RequestError) as raised:
            client.resolve_access((photos / "a.png").as_uri())
        assert raised.value.name == "accessDenied"


def leases_granted(client):
    """The accessId of every lease the server grants ``client`` from now on, as it comes."""
    leases = []

    def heard(direction, message):
        result = message.get("result")
        if direction == "receive" and isinstance(result, dict) and "accessId" in result:
            leases.append(result["accessId"])
    client.on_traffic(heard)
    return leases


class EditorCrashed(Exception):
    pass


def test_an_exception_in_the_access_block_is_not_replaced_by_a_failed_release(wharf_path, script, photos, caplog):
    # The release in access()'s finally raised over the block's own exception: the caller saw
    # accessNotFound (or a WharfTimeout) where its code had raised, and its exception only as
    # the __context__ of ours.
    with WharfClient.spawn(wharf_path, script([{"choose": [str(photos / "notes.txt")]}])) as client:
        [url] = client.present_importer(["public.plain-text"]).result(timeout=10)
        leases = leases_granted(client)
        with pytest.raises(EditorCrashed) as raised:
            with client.access(url):
                client.release_access(leases[0])  # released behind its back: the scoped release fails
                raise EditorCrashed("the editor crashed")
        assert str(raised.value) == "the editor crashed"
        assert "accessNotFound" in caplog.text and leases[0] in caplog.text, "the release failure was not logged"
        if sys.version_info >= (3, 11):
            assert any("accessNotFound" in note for note in raised.value.__notes__)
        # When the block did not raise, a failed release is the error to raise.
        with pytest.raises(RequestError) as failed:
            with client.access(url):
                client.release_access(leases[1])
        assert failed.value.name == "accessNotFound"
        assert client.list_access().active_leases == 0


def test_an_exception_in_the_asyncio_access_block_is_not_replaced_by_a_failed_release(wharf_path, script, photos,
                                                                                         caplog):
    async def main():
        async with await AsyncWharfClient.spawn(wharf_path, script([{"choose": [str(photos / "notes.txt")]}])) as client:
            [url] = await (await client.present_importer(["public.plain-text"])).result(timeout=10)
            leases = leases_granted(client)
            with pytest.raises(EditorCrashed):
                async with client.access(url):
                    await client.release_access(leases[0])
                    raise EditorCrashed("the editor crashed")
            with pytest.raises(RequestError) as failed:
                async with client.access(url):
                    await client.release_access(leases[1])
            assert failed.value.name == "accessNotFound"
    asyncio.run(asyncio.wait_for(main(), 30))
    assert "accessNotFound" in caplog.text


@pytest.fixture
def look_alikes(tmp_path):
    """Two files whose names read the same: ``x`` + the byte 0xFF (not UTF-8), and ``x`` + U+FFFD
    (what the first name's text shows). Returns the first one's URL."""
    folder = os.fsencode(tmp_path)
    with open(os.path.join(folder, b"x\xff.txt"), "w") as file:
        file.write("picked\n")
    with open(os.path.join(folder, "x\ufffd.txt".encode()), "w") as file:
        file.write("its look-alike\n")
    return tmp_path.as_uri() + "/x%FF.txt"


def test_access_opens_the_file_picked_when_its_name_is_not_utf8(wharf_path, script, look_alikes):
    with WharfClient.spawn(wharf_path, script([{"choose": [look_alikes]}])) as client:
        [url] = client.present_importer(["public.plain-text"]).result(timeout=10)
        assert url == look_alikes
        with client.access(url) as path:
            assert os.fsencode(path).endswith(b"/x\xff.txt")
            assert open(path).read() == "picked\n"


def test_the_asyncio_access_opens_the_file_picked_when_its_name_is_not_utf8(wharf_path, script, look_alikes):
    async def main():
        async with await AsyncWharfClient.spawn(wharf_path, script([{"choose": [look_alikes]}])) as client:
            [url] = await (await client.present_importer(["public.plain-text"])).result(timeout=10)
            async with client.access(url) as path:
                return open(path).read()
    assert asyncio.run(main()) == "picked\n"


def test_url_to_path_decodes_to_the_exact_bytes_of_local_file_urls_only():
    assert os.fsencode(url_to_path("file:///tmp/x%FF%20y%C3%A9")) == b"/tmp/x\xff y\xc3\xa9"
    assert url_to_path("file://localhost/tmp/a%23b%3Fc") == "/tmp/a#b?c"
    for url in ("http://example.com/a", "file://example.com/a", "file:///tmp/a?b", "file:///tmp/a#b", "/tmp/a",
                "file:a"):
        with pytest.raises(ValueError):
            url_to_path(url)


def test_the_frontend_role_lists_rejects_and_chooses(wharf_path, photos):
    (photos / ".hidden.png").write_bytes((photos / "a.png").read_bytes())
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
        seen = {}

        def draw(presentation):
            seen["title"] = presentation.title
            seen["names"] = [entry.name for entry in presentation.entries() if entry.enabled]
            seen["shown"] = [entry.name for entry in presentation.entries(show_hidden=True) if entry.enabled]
            with pytest.raises(RequestError) as rejected:
                presentation.choose([(photos / "notes.txt").as_uri()])
            seen["rejected"] = rejected.value.name
            presentation.choose([(photos / "b.png").as_uri()])

        client.on_present(draw)
        dialog = client.present_importer(["public.image"], title="Pick one", default_directory=str(photos))
        assert dialog.result(timeout=10) == [(photos / "b.png").as_uri()]
        assert seen == {"title": "Pick one", "names": ["a.png", "b.png"], "rejected": "choiceRejected",
                        "shown": [".hidden.png", "a.png", "b.png"]}


def test_cancel_from_the_app_hides_the_presentation_and_raises_cancelled(wharf_path):
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
        shown = threading.Event()
        presentations = []
        client.on_present(lambda p: (presentations.append(p), shown.set()))
        dialog = client.present_importer(["public.item"])
        assert shown.wait(10)
        assert dialog.cancel() is True
        with pytest.raises(DialogCancelled) as raised:
            dialog.result(timeout=10)
        assert raised.value.reason == "client"
        assert presentations[0].hidden.wait(10)


def test_an_exporter_presentation_names_the_documents_for_each_offered_type(wharf_path, tmp_path):
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
        shown = []
        # Saving as the second type writes the names its choice announced.
        client.on_present(lambda p: (shown.append(p), p.save(tmp_path.as_uri(), content_type="public.html")))
        writable = ["public.plain-text", "public.html"]
        dialog = client.present_exporter([ExportDocument(writable, filename="one", text="1"),
                                          ExportDocument(writable, filename="two", text="2")])
        urls = dialog.result(timeout=10)
        choices = shown[0].content_type_choices
        assert [(c.content_type, c.filenames) for c in choices] == [
            ("public.plain-text", ["one.txt", "two.txt"]), ("public.html", ["one.html", "two.html"])]
        assert all(c.description for c in choices)
        assert urls == [(tmp_path / name).as_uri() for name in choices[1].filenames]


def test_a_lazy_export_asks_for_its_snapshot_and_writes_it(wharf_path, tmp_path):
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
        client.on_present(lambda p: p.save((tmp_path / "out.txt").as_uri()))
        asked = []
        document = ExportDocument(["public.plain-text"], filename="out",
                                  snapshot=lambda content_type: asked.append(content_type) or "made on demand\n")
        dialog = client.present_exporter([document])
        assert dialog.result(timeout=10) == [(tmp_path / "out.txt").as_uri()]
        assert asked == ["public.plain-text"]
        assert dialog.content_types == ["public.plain-text"]
        assert (tmp_path / "out.txt").read_text() == "made on demand\n"


def test_a_failing_snapshot_fails_the_dialog_and_writes_nothing(wharf_path, tmp_path):
    def broken(content_type):
        raise RuntimeError("the renderer crashed")
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
        client.on_present(lambda p: p.save((tmp_path / "out.txt").as_uri()))
        dialog = client.present_exporter([ExportDocument(["public.plain-text"], snapshot=broken)])
        with pytest.raises(DialogFailed) as raised:
            dialog.result(timeout=10)
        assert raised.value.code == -32041
        assert "renderer crashed" in raised.value.message
        assert not (tmp_path / "out.txt").exists()


def test_the_server_dying_mid_dialog_fails_every_pending_call_and_dialog(wharf_path):
    # A handler that draws nothing and returns: the dialogs stay open.
    client = WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True,
                               on_present=lambda presentation: None)
    first = client.present_importer(["public.item"])
    second = client.present_importer(["public.image"])
    client.process.kill()
    for dialog in (first, second):
        with pytest.raises(ConnectionLost) as raised:
            dialog.result(timeout=10)
        assert "exited" in str(raised.value)
    with pytest.raises(ConnectionLost):
        client.ping()
    client.close()


class Captured:
    """Something a snapshot function captures (an editor's buffer, say); a weakref tells when
    it is gone."""
    text = "made on demand\n"


def lazy_document(captured):
    """A lazy document whose snapshot function captures a fresh Captured; its weakref is
    appended to ``captured``. Made here, so that the test's own frame refers to neither."""
    buffer = Captured()
    captured.append(weakref.ref(buffer))
    return ExportDocument(["public.plain-text"], filename="out", snapshot=lambda content_type: buffer.text)


def save_or_dismiss(folder):
    """A presenter handler that saves every other dialog and dismisses the rest: half the
    dialogs end completed, half cancelled."""
    turns = iter(range(1 << 30))

    def draw(presentation):
        if next(turns) % 2:
            presentation.dismiss()
        else:
            presentation.save((folder / "out.txt").as_uri(), overwrite=True)
    return draw


def test_ended_dialogs_are_forgotten_with_their_snapshot_functions(wharf_path, tmp_path):
    # The client kept every dialog it had presented, and with it the snapshot functions and all
    # they captured, for as long as it ran: a long-running editor leaked each export's buffer.
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True,
                           on_present=save_or_dismiss(tmp_path)) as client:
        captured, ended = [], []
        for _ in range(6):
            dialog = client.present_exporter([lazy_document(captured)])
            try:
                dialog.result(timeout=10)
            except DialogCancelled:
                pass
            ended.append(dialog)
        client.ping(timeout=10)  # answered after every dialog's last event: all routed
        assert client._dialogs == {} and client._router.dialogs == {}, "ended dialogs are still kept"
        assert client.dialog(ended[0].id) is None
        # What the app kept still tells how each ended, and late events change nothing.
        assert ended[0].result() == [(tmp_path / "out.txt").as_uri()]
        with pytest.raises(DialogCancelled):
            ended[1].result()
        # The snapshot functions are let go of at the end, even while the app keeps its Dialogs …
        gc.collect()
        assert [ref() for ref in captured] == [None] * 6, "a snapshot function outlived its dialog"
        # … and the Dialogs themselves once the app drops them.
        dialogs = [weakref.ref(dialog) for dialog in ended]
        del ended, dialog
        gc.collect()
        assert [ref() for ref in dialogs] == [None] * 6, "the client still holds ended dialogs"


def test_the_asyncio_client_forgets_ended_dialogs_with_their_snapshot_functions(wharf_path, tmp_path):
    async def main():
        turns = iter(range(1 << 30))

        async def draw(presentation):  # as save_or_dismiss does
            if next(turns) % 2:
                await presentation.dismiss()
            else:
                await presentation.save((tmp_path / "out.txt").as_uri(), overwrite=True)
        async with await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True,
                                                on_present=draw) as client:
            captured, dialogs = [], []
            for _ in range(4):
                dialog = await client.present_exporter([lazy_document(captured)])
                try:
                    await dialog.result(timeout=10)
                except DialogCancelled:
                    pass
                assert client.dialog(dialog.id) is None
                dialogs.append(weakref.ref(dialog))
            del dialog
            assert client._dialogs == {} and client._router.dialogs == {}, "ended dialogs are still kept"
            gc.collect()
            assert [ref() for ref in captured] == [None] * 4, "a snapshot function outlived its dialog"
            assert [ref() for ref in dialogs] == [None] * 4, "the client still holds ended dialogs"
    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_notification_for_an_ended_dialog_is_dropped_not_kept_for_ever():
    router = Router()
    record = router.register("d1", "importer", [])
    router.route("dialog/cancelled", {"dialogId": "d1", "reason": "user"})
    assert record.final is not None and router.dialogs == {}
    # A stray event after the end: harmless, and not kept as an early event of a dialog to come.
    routed = router.route("dialog/progress", {"dialogId": "d1", "fraction": 1})
    assert routed is not None and routed.dialog_id == "d1"
    assert router._early == {} and record.events[-1].kind == "cancelled"
    # One named before the answer that registers its dialog still reaches it.
    router.route("dialog/presentationChanged", {"dialogId": "d2", "isPresented": True})
    assert [event.kind for event in router.register("d2", "importer", []).events] == ["presentationChanged"]


#: Requests the fake server (mode ``asks``) sends the client once dialog d1 is open, and how
#: each must be answered: with the error code, or the result.
SNAPSHOT_ASKS = [
    ({"method": "exporter/snapshot", "params": [0]}, -32602),
    ({"method": "exporter/snapshot", "params": "d1"}, -32602),
    ({"method": "exporter/snapshot"}, -32602),
    ({"method": "exporter/snapshot", "params": {"dialogId": "d1", "documentIndex": True,
                                                "contentType": "public.plain-text"}}, -32602),
    ({"method": "exporter/thumbnail", "params": {"dialogId": "d1"}}, -32601),
    ({"method": "exporter/snapshot", "params": {"dialogId": "d1", "documentIndex": 0,
                                                "contentType": "public.plain-text"}}, {"text": "lazy\n"}),
]


#: Dialog d1's documents: documentIndex true must not be taken for 1 (a bool is an int in Python).
TWO_LAZY_DOCUMENTS = [ExportDocument(["public.plain-text"], snapshot=lambda content_type: "lazy\n"),
                      ExportDocument(["public.plain-text"], snapshot=lambda content_type: "second\n")]


def answered_as(answers):
    """Each answer as SNAPSHOT_ASKS says it: its error code, or its result."""
    return [answer["error"]["code"] if "error" in answer else answer["result"] for answer in answers]


def test_an_exporter_snapshot_with_params_not_an_object_is_answered_invalid_params(tmp_path):
    # Params that were not an object (an array, a string, none) were answered -32601, "method
    # not found", for the one method the client does serve; JSON-RPC says -32602.
    client = fake("asks", tmp_path)
    client.present_exporter(TWO_LAZY_DOCUMENTS)
    answers = client.request("fake/ask", {"requests": [ask for ask, _ in SNAPSHOT_ASKS]}, timeout=10)
    assert answered_as(answers) == [expected for _, expected in SNAPSHOT_ASKS]
    assert "params must be an object" in answers[0]["error"]["message"]
    client.close()


def test_the_asyncio_client_answers_invalid_params_to_an_exporter_snapshot_not_an_object(tmp_path):
    async def main():
        async with await AsyncWharfClient.spawn(fake_launcher("asks", tmp_path)) as client:
            await client.present_exporter(TWO_LAZY_DOCUMENTS)
            return await client.request("fake/ask", {"requests": [ask for ask, _ in SNAPSHOT_ASKS]}, timeout=10)
    assert answered_as(asyncio.run(main())) == [expected for _, expected in SNAPSHOT_ASKS]


@pytest.fixture
def long_winded(tmp_path, wharf_path):
    """A wharf that first writes a 2 MB line to standard error, then a short one."""
    launcher = tmp_path / "long-winded.sh"
    launcher.write_text("#!/bin/sh\n{ head -c 2000000 /dev/zero | tr '\\0' x; printf '\\nand a short one\\n'; } >&2\n"
                        f"exec {wharf_path} \"$@\"\n")
    launcher.chmod(0o755)
    return str(launcher)


def test_a_long_stderr_line_is_kept_in_bounded_memory_and_the_lines_after_it_too(long_winded, script):
    client = WharfClient.spawn(long_winded, script([{"delayMs": 30000}, {"dismiss": True}]))
    dialog = client.present_importer(["public.item"])
    client.process.kill()
    with pytest.raises(ConnectionLost):
        dialog.result(timeout=10)
    assert "\nand a short one\n" in client.stderr_tail
    assert len(client.stderr_tail) < 200_000, "not 40 lines of at most 4 KiB"
    client.close()


def test_the_asyncio_client_reads_on_past_a_stderr_line_over_its_buffer_limit(long_winded, script):
    # asyncio's readline() fails past its limit (1 MiB): standard error was no longer read, and
    # the server's end could not be told to the dialogs.
    async def main():
        client = await AsyncWharfClient.spawn(long_winded, script([{"delayMs": 30000}, {"dismiss": True}]))
        dialog = await client.present_importer(["public.item"])
        await client.kill()
        with pytest.raises(ConnectionLost):
            await dialog.result(timeout=10)
        assert "\nand a short one\n" in client.stderr_tail
        assert len(client.stderr_tail) < 200_000, "not 40 lines of at most 4 KiB"
        await client.close()
    asyncio.run(main())


def test_the_stderr_tail_keeps_the_last_lines_and_the_end_of_each():
    tail = OutputTail(lines=2, line_bytes=4)
    for chunk in (b"one\ntw", b"o\nthree\nfour-and-more", b"more\nfi"):
        tail.feed(chunk)
    assert tail.text == "hree\nmore\nfi"


def test_a_client_dropped_without_close_ends_its_server(wharf_path, script):
    client = WharfClient.spawn(wharf_path, script([{"delayMs": 30000}, {"dismiss": True}]))
    dialog = client.present_importer(["public.item"])
    process, reader, dropped = client.process, client._reader_thread, weakref.ref(client)
    del client, dialog
    deadline = time.monotonic() + 10
    # The reader thread may hold it a moment longer, while it handles the dialog's events.
    while dropped() is not None and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    assert dropped() is None, "nothing but the client's own threads refer to it, yet it lives"
    reader.join(10)
    assert not reader.is_alive() and process.returncode is not None, "the server was not ended and reaped"


def test_a_pending_request_fails_with_the_servers_last_words_when_it_dies(tmp_path):
    client = fake("dies-mid-dialog", tmp_path)
    dialog = client.present_importer(["public.item"])
    with pytest.raises(ConnectionLost) as raised:
        client.ping()
    assert "status 3" in str(raised.value)
    with pytest.raises(ConnectionLost) as raised:
        dialog.result(timeout=10)
    assert "dying on purpose" in str(raised.value)
    client.close()


def _raise(*_args):
    raise RuntimeError("the listener's own bug")


def test_a_listener_that_raises_is_logged_and_the_session_goes_on(wharf_path, script, caplog):
    # It ran on the reader thread, which it ended: every dialog and call then failed with
    # ConnectionLost ("the server closed the connection") while the server ran on, unread.
    with WharfClient.spawn(wharf_path, script([{"dismiss": True}])) as client:
        client.on_notification(_raise)
        client.on_traffic(_raise)
        dialog = client.present_importer(["public.item"], timeout=10)
        with pytest.raises(DialogCancelled):
            dialog.result(timeout=10)
        client.ping(timeout=10)
        assert client.process.poll() is None
    assert "the listener's own bug" in caplog.text


def test_an_asyncio_listener_that_raises_is_logged_and_the_session_goes_on(wharf_path, script, caplog):
    async def main():
        async with await AsyncWharfClient.spawn(wharf_path, script([{"dismiss": True}])) as client:
            client.on_notification(_raise)
            client.on_traffic(_raise)
            dialog = await client.present_importer(["public.item"], timeout=10)
            with pytest.raises(DialogCancelled):
                await dialog.result(timeout=10)
            await client.ping(timeout=10)
    asyncio.run(asyncio.wait_for(main(), 30))
    assert "the listener's own bug" in caplog.text


def test_events_that_arrive_before_the_present_answer_reach_the_dialog(tmp_path):
    client = fake("early-events", tmp_path)
    dialog = client.present_importer(["public.item"])
    assert dialog.result(timeout=10) == ["file:///early.txt"]
    client.close()


def test_notifications_between_a_request_and_its_response_are_routed(wharf_path, photos):
    # dialog/choose is answered after the dialog's own notifications: the client must route
    # them to the dialog while the choose call still waits.
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
        order = []
        client.on_notification(lambda method, params: order.append(method))
        client.on_present(lambda p: (p.choose([(photos / "a.png").as_uri()]), order.append("choose answered")))
        dialog = client.present_importer(["public.image"], default_directory=str(photos))
        dialog.result(timeout=10)
        caught_up(client)
        assert "dialog/completed" in order


def test_waiting_on_a_slow_server_does_not_spin(tmp_path):
    client = fake("slow", tmp_path)
    before = time.process_time()
    client.ping()
    used = time.process_time() - before
    # A busy wait would burn about the whole second of waiting; blocking burns almost nothing.
    assert used < 0.5, f"waiting one second cost {used:.2f} s of CPU"
    client.close()


def sent_by(client):
    """The messages ``client`` sends from now on."""
    sent = []
    client.on_traffic(lambda direction, message: sent.append(message) if direction == "send" else None)
    return sent


def cancels_heard(client):
    """The ids of the ``$/cancelRequest`` notifications the fake server says it heard."""
    heard = []
    client.on_notification(lambda method, params: heard.append(params["id"]) if method == "fake/cancelRequest" else None)
    return heard


def caught_up(client):
    """Waits until a WharfClient's notification listeners, which run on a thread of their own,
    have heard everything read so far."""
    done = threading.Event()
    client._heard.put(done.set)
    assert done.wait(10), "the listeners did not catch up"


def assert_the_ping_was_cancelled(sent, heard):
    [ping] = [message for message in sent if message.get("method") == "ping"]
    assert {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": ping["id"]}} in sent
    assert heard == [ping["id"]]


def test_a_request_that_times_out_is_cancelled_on_the_server_and_its_late_answer_ignored(tmp_path):
    client = fake("wedged", tmp_path)
    sent, heard = sent_by(client), cancels_heard(client)
    with pytest.raises(WharfTimeout, match="ping got no answer within 0.2 s"):
        client.ping(timeout=0.2)
    # The fake answers the ping after saying it heard the cancel, before answering this.
    with pytest.raises(RequestError) as raised:
        client.request("fake/next", timeout=5)
    assert raised.value.code == -32601
    caught_up(client)
    assert_the_ping_was_cancelled(sent, heard)
    client.close()


def test_a_present_answered_after_it_timed_out_has_its_dialog_cancelled(tmp_path):
    client = fake("late-present", tmp_path)
    sent, ended = sent_by(client), threading.Event()
    client.on_notification(lambda method, params: ended.set() if method == "dialog/cancelled" else None)
    with pytest.raises(WharfTimeout, match="presentImporter got no answer within 0.2 s"):
        client.present_importer(["public.item"], timeout=0.2)
    assert ended.wait(5), "the dialog the late answer named was not cancelled"
    assert any(message.get("method") == "cancel" and message["params"] == {"dialogId": "d-late"} for message in sent)
    client.ping(timeout=5)  # answered after the dialog's events: they have been routed
    assert client.dialog("d-late") is None
    assert client._router._early == {}, "the abandoned dialog's events were kept"
    client.close()


def test_the_asyncio_client_cancels_a_request_that_times_out(tmp_path):
    async def main():
        async with await AsyncWharfClient.spawn(fake_launcher("wedged", tmp_path)) as client:
            sent, heard = sent_by(client), cancels_heard(client)
            with pytest.raises(WharfTimeout, match="ping got no answer within 0.2 s"):
                await client.ping(timeout=0.2)
            with pytest.raises(RequestError) as raised:
                await client.request("fake/next", timeout=5)
            assert raised.value.code == -32601
            assert_the_ping_was_cancelled(sent, heard)
    asyncio.run(main())


def test_an_asyncio_request_whose_caller_is_cancelled_is_forgotten_and_cancelled_on_the_server(tmp_path):
    async def main():
        async with await AsyncWharfClient.spawn(fake_launcher("wedged", tmp_path)) as client:
            sent, heard = sent_by(client), cancels_heard(client)
            waiting = asyncio.ensure_future(client.ping(timeout=60))
            await asyncio.sleep(0.2)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert client._core._pending == {} and client._futures == {}, "the cancelled request is still pending"
            with pytest.raises(RequestError):  # the fake answers this after the ping's late answer
                await client.request("fake/next", timeout=5)
            assert_the_ping_was_cancelled(sent, heard)
    asyncio.run(main())


def test_the_asyncio_client_cancels_the_dialog_of_a_present_answered_after_it_timed_out(tmp_path):
    async def main():
        async with await AsyncWharfClient.spawn(fake_launcher("late-present", tmp_path)) as client:
            sent, ended = sent_by(client), asyncio.Event()
            client.on_notification(lambda method, params: ended.set() if method == "dialog/cancelled" else None)
            with pytest.raises(WharfTimeout, match="presentImporter got no answer within 0.2 s"):
                await client.present_importer(["public.item"], timeout=0.2)
            await asyncio.wait_for(ended.wait(), 5)
            assert any(message.get("method") == "cancel" and message["params"] == {"dialogId": "d-late"}
                       for message in sent)
            await client.ping(timeout=5)
            assert client.dialog("d-late") is None
            assert client._router._early == {}, "the abandoned dialog's events were kept"
    asyncio.run(main())


def test_a_large_request_to_a_wedged_server_times_out_and_close_kills_it(wharf_path):
    # A stopped wharf reads nothing: writing 20 MB blocked the caller in write(), past its
    # timeout, for ever, and close() then waited for the write lock that write held.
    client = WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"])
    try:
        os.kill(client.process.pid, signal.SIGSTOP)
        outcome = []

        def wedge():
            try:
                client.request("ping", {"padding": "x" * 20_000_000}, timeout=0.2)
            except WharfTimeout as error:
                outcome.append(error)
        caller = threading.Thread(target=wedge, daemon=True)
        caller.start()
        caller.join(5)
        assert not caller.is_alive() and len(outcome) == 1, "the request's timeout did not hold"
        closed = []
        closer = threading.Thread(target=lambda: closed.append(client.close(timeout=0.5)), daemon=True)
        closer.start()
        closer.join(10)
        assert closed == [-signal.SIGKILL], "close() did not kill the wedged server"
    finally:
        client.process.kill()
        client.process.wait()


def test_the_asyncio_close_kills_a_wedged_server_with_a_large_request_unread(wharf_path):
    # A stopped wharf reads nothing: 20 MB stay in the transport's buffer, and close() awaited
    # their drain with no limit, for ever.
    async def main():
        client = await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"])
        try:
            os.kill(client.process.pid, signal.SIGSTOP)
            with pytest.raises(WharfTimeout):
                await client.request("ping", {"padding": "x" * 20_000_000}, timeout=0.2)
            started = time.monotonic()
            assert await asyncio.wait_for(client.close(timeout=0.5), 15) == -signal.SIGKILL
            assert time.monotonic() - started < 5
        finally:
            if client.process.returncode is None:
                client.process.kill()
                await client.process.wait()
    asyncio.run(main())


PADDING = "x" * (1 << 18)
#: More than any pipe holds (Linux's largest is 1 MiB): wharf's input takes one such request in
#: part, and the writer is still writing it.
BIG_PADDING = "x" * (1 << 22)


class CountingPipe:
    """wharf's input, counting the bytes it has taken."""

    def __init__(self, pipe):
        self.pipe = pipe
        self.taken = 0

    def write(self, data):
        written = self.pipe.write(data)
        self.taken += len(data)
        return written

    def flush(self):
        self.pipe.flush()

    def close(self):
        self.pipe.close()


def pings_read(client):
    """The ids of the pings wharf says it has read, in the order it read them ($/logTrace)."""
    read = []

    def heard(method, params):
        found = method == "$/logTrace" and re.fullmatch(r"Received request 'ping - \((\d+)\)'\.", params["message"])
        if found:
            read.append(int(found.group(1)))
    client.on_notification(heard)
    client.notify("$/setTrace", {"value": "messages"})
    return read


def padded_pings(sent):
    return [message["id"] for message in sent if message.get("method") == "ping" and message.get("params")]


def cancels(sent):
    return [message["params"]["id"] for message in sent if message.get("method") == "$/cancelRequest"]


def test_sends_wait_for_a_wharf_that_reads_nothing_instead_of_queueing_without_limit(wharf_path):
    # The writer thread's queue had no limit: 40 requests of 256 KiB to a stopped wharf were all
    # encoded and queued, 10 MiB, and as much more as callers sent.
    process = subprocess.Popen([wharf_path, "--state-dir", ":memory:"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pipe = CountingPipe(process.stdin)
    client = WharfClient(process.stdout, pipe, process=process)
    try:
        client.initialize()
        read = pings_read(client)
        sent, held = [], []
        sent_bytes = 0

        def heard(direction, message):
            # What the client holds for wharf as each message goes: taken, not yet in the pipe.
            nonlocal sent_bytes
            if direction == "send":
                sent.append(message)
                sent_bytes += len(encode(message))
                held.append(sent_bytes - pipe.taken)
        client.on_traffic(heard)
        os.kill(process.pid, signal.SIGSTOP)
        try:
            callers = [threading.Thread(target=client.request, args=("ping", {"padding": PADDING}), daemon=True)
                       for _ in range(40)]
            for caller in callers:
                caller.start()
            # Every caller has either handed its ping over or is held back until there is room
            # (the client had none to hold back before it had a limit).
            deadline = time.monotonic() + 20
            while len(padded_pings(sent)) + getattr(client._output, "waiting", 0) < 40:
                assert time.monotonic() < deadline, "the callers never got to send"
                time.sleep(0.01)
            peak = max(held)
        finally:
            os.kill(process.pid, signal.SIGCONT)
        assert peak <= 2 * len(PADDING), f"{peak} bytes held for a wharf that reads nothing"
        # Once wharf reads again, every caller is answered, and wharf read the pings in the order
        # they were sent.
        for caller in callers:
            caller.join(30)
        assert not any(caller.is_alive() for caller in callers)
        client.ping()
        caught_up(client)
        assert read[:-1] == padded_pings(sent) and len(read) == 41
        assert max(held) <= 2 * len(PADDING)
    finally:
        client.close()


def test_a_request_that_times_out_waiting_for_room_is_never_sent(wharf_path):
    client = WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"])
    try:
        read = pings_read(client)
        sent = sent_by(client)
        outcomes = []

        def call():
            started = time.monotonic()
            try:
                client.request("ping", {"padding": BIG_PADDING}, timeout=0.3)
            except WharfTimeout as error:
                outcomes.append((error, time.monotonic() - started))
        os.kill(client.process.pid, signal.SIGSTOP)
        try:
            callers = [threading.Thread(target=call, daemon=True) for _ in range(5)]
            for caller in callers:
                caller.start()
            for caller in callers:
                caller.join(10)
        finally:
            os.kill(client.process.pid, signal.SIGCONT)
        # Each caller gave up within its timeout, waiting for room or for the answer.
        assert len(outcomes) == 5 and all(took < 0.3 + 1.5 for _, took in outcomes), outcomes
        client.ping(timeout=10)  # wharf reads on: the one ping it was given, its cancel, and this
        caught_up(client)
        # Only the first had been handed to the pipe: the server is told to drop it; the others
        # were never sent, and need no $/cancelRequest.
        first = padded_pings(sent)[:1]
        assert cancels(sent) == first
        assert read[:-1] == first
    finally:
        client.close()


def test_the_asyncio_client_waits_for_the_pipe_to_drain_instead_of_buffering_without_limit(wharf_path):
    # _send wrote into the transport and never awaited its drain: 40 requests of 256 KiB to a
    # stopped wharf sat in the transport's buffer, 10 MiB, and as much more as was sent.
    async def main():
        client = await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"])
        try:
            read = pings_read(client)
            sent = sent_by(client)
            stdin = client.process.stdin
            os.kill(client.process.pid, signal.SIGSTOP)
            try:
                pings = [asyncio.ensure_future(client.request("ping", {"padding": PADDING})) for _ in range(40)]
                await asyncio.sleep(0)  # each task runs to its first wait: every ping is sent
                buffered = stdin.transport.get_write_buffer_size()
            finally:
                os.kill(client.process.pid, signal.SIGCONT)
            # The transport holds the message it was writing when it said wait, no more.
            assert buffered <= 2 * len(PADDING), f"{buffered} bytes buffered for a wharf that reads nothing"
            # Once wharf reads again, what waited is written, in order, and answered.
            await asyncio.wait_for(asyncio.gather(*pings), 30)
            assert stdin.transport.get_write_buffer_size() == 0
            await client.ping()
            assert read[:-1] == padded_pings(sent) and len(read) == 41
        finally:
            await client.close()
    asyncio.run(main())


def test_an_asyncio_request_that_times_out_waiting_for_the_pipe_is_never_sent(wharf_path):
    async def main():
        client = await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"])
        try:
            read = pings_read(client)
            sent = sent_by(client)
            os.kill(client.process.pid, signal.SIGSTOP)
            try:
                pings = [client.request("ping", {"padding": BIG_PADDING}, timeout=0.3) for _ in range(5)]
                outcomes = await asyncio.wait_for(asyncio.gather(*pings, return_exceptions=True), 10)
            finally:
                os.kill(client.process.pid, signal.SIGCONT)
            assert all(isinstance(outcome, WharfTimeout) for outcome in outcomes), outcomes
            await client.ping(timeout=10)
            # Only the first was written: the server is told to drop it, and the others, taken
            # out unsent, need no $/cancelRequest.
            first = padded_pings(sent)[:1]
            assert cancels(sent) == first
            assert read[:-1] == first
        finally:
            await client.close()
    asyncio.run(main())


def test_close_timeout_bounds_the_whole_close_of_a_server_that_does_not_answer(wharf_path):
    # Each stage of close() (shutdown, the reader's end, the exit) waited the whole timeout: a
    # stopped wharf held close(2) for 6 s before it was killed.
    client = WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"])
    try:
        os.kill(client.process.pid, signal.SIGSTOP)
        started = time.monotonic()
        assert client.close(timeout=2) == -signal.SIGKILL
        took = time.monotonic() - started
        assert took < 2 + 1.5, f"close(timeout=2) took {took:.1f} s"
    finally:
        client.process.kill()
        client.process.wait()


def test_the_asyncio_close_timeout_bounds_the_whole_close(wharf_path):
    async def main():
        client = await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"])
        try:
            os.kill(client.process.pid, signal.SIGSTOP)
            started = time.monotonic()
            assert await client.close(timeout=2) == -signal.SIGKILL
            return time.monotonic() - started
        finally:
            if client.process.returncode is None:
                client.process.kill()
                await client.process.wait()
    took = asyncio.run(asyncio.wait_for(main(), 30))
    assert took < 2 + 1.5, f"close(timeout=2) took {took:.1f} s"


def test_the_asyncio_api_over_the_same_core(wharf_path, script, photos):
    async def main():
        args = script([{"choose": [str(photos / "notes.txt")]}, {"dismiss": True}])
        async with await AsyncWharfClient.spawn(wharf_path, args, app="pytest-async") as client:
            dialog = await client.present_importer(["public.plain-text"])
            kinds = [event.kind async for event in dialog.events()]
            [url] = await dialog.result()
            async with client.access(url) as path:
                text = open(path).read()
            cancelled = await client.present_importer(["public.plain-text"])
            with pytest.raises(DialogCancelled):
                await cancelled.result()
            return kinds, text, (await client.list_access()).active_leases
    assert asyncio.run(main()) == (["presentationChanged", "completed"], "not a photo\n", 0)


def test_the_asyncio_frontend_role(wharf_path, photos):
    async def main():
        async with await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
            async def draw(presentation):
                listing = await presentation.list()
                await presentation.choose([entry.url for entry in listing.entries if entry.name == "a.png"])
            client.on_present(draw)
            dialog = await client.present_importer(["public.png"], default_directory=str(photos))
            return await dialog.result()
    assert asyncio.run(main()) == [(photos / "a.png").as_uri()]


def test_an_asyncio_dialog_keeps_a_bounded_history_of_events_the_app_does_not_read_and_always_its_ending(wharf_path):
    from wharf_client.core import EVENTS_KEPT

    async def main():
        dismiss = asyncio.Event()

        async def draw(presentation):
            await dismiss.wait()
            await presentation.dismiss(timeout=10)

        async with await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True,
                                                on_present=draw) as client:
            heard = []
            client.on_notification(lambda method, params: heard.append(method))
            dialog = await client.present_importer(["public.item"], timeout=10)
            await client.ping(timeout=10)  # wharf is quiet now: the dialog waits on its presenter
            # What a long export's dialog/progress would be, fed to the client's reader as if wharf
            # had written it, while the app reads none of it.
            progress = b"".join(encode({"jsonrpc": "2.0", "method": "dialog/progress",
                                        "params": {"dialogId": dialog.id, "bytesWritten": n, "totalBytes": 5000}})
                                for n in range(5000))
            client.process.stdout.feed_data(progress)
            await client.ping(timeout=10)
            assert heard.count("dialog/progress") == 5000  # listeners hear every one
            assert len(dialog._record.events) == EVENTS_KEPT
            dismiss.set()
            with pytest.raises(DialogCancelled):
                await dialog.result(timeout=10)
            events = [event async for event in dialog.events(timeout=10)]
        # The oldest were dropped, the latest kept, and the ending always.
        assert len(events) == EVENTS_KEPT + 1
        assert [event.kind for event in events[-2:]] == ["presentationChanged", "cancelled"]
        assert [event.params["bytesWritten"] for event in events[:-2]] == list(range(5000 - EVENTS_KEPT + 1, 5000))
    asyncio.run(asyncio.wait_for(main(), 60))


def test_events_kept_for_a_dialog_not_registered_yet_are_bounded_and_keep_its_ending():
    from wharf_client.core import EVENTS_KEPT
    router = Router()
    for n in range(1000):
        router.route("dialog/progress", {"dialogId": "d9", "bytesWritten": n, "totalBytes": 1000})
    router.route("dialog/cancelled", {"dialogId": "d9", "reason": "user"})
    record = router.register("d9", "importer", [])
    assert len(record.events) == EVENTS_KEPT + 1
    assert record.final is not None and record.final.params["reason"] == "user"
    assert record.events[0].params["bytesWritten"] == 1000 - EVENTS_KEPT


def test_a_listener_that_blocks_or_calls_the_client_stalls_no_answer_and_no_dialog(wharf_path, script):
    # Listeners ran on the reader thread: while one waited, no answer and no dialog event was
    # read, and one that called the client waited for an answer only it could have read.
    release, waiting = threading.Event(), threading.Event()
    heard, answered = [], []

    with WharfClient.spawn(wharf_path, script([{"dismiss": True}])) as client:
        def listener(method, params):
            heard.append(method)
            if len(heard) == 1:
                answered.append(client.ping(timeout=5))
                waiting.set()
                release.wait(30)
        client.on_notification(listener)
        dialog = client.present_importer(["public.item"], timeout=5)
        with pytest.raises(DialogCancelled):
            dialog.result(timeout=5)
        client.ping(timeout=5)
        # The listeners' thread may not have begun yet when the dialog's end and this answer
        # are read (it did not under load, and heard was still empty): wait for it to block.
        assert waiting.wait(10), "the listener never got its ping answered"
        assert heard == ["dialog/presentationChanged"]  # still in the listener
        release.set()
    assert answered == [None]
    assert heard == ["dialog/presentationChanged", "dialog/cancelled"]  # in order, by close()


def test_notifications_past_the_listener_backlog_are_not_kept_for_a_blocked_listener(wharf_path, script, caplog):
    from wharf_client.client import LISTENER_BACKLOG
    release = threading.Event()
    heard = []
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"]) as client:
        def listener(method, params):
            heard.append(method)
            release.wait(30)
        client.on_notification(listener)
        client.notify("$/setTrace", {"value": "messages"})  # wharf logs each request it reads
        for _ in range(LISTENER_BACKLOG + 200):
            client.ping(timeout=5)
        assert client._heard.qsize() == LISTENER_BACKLOG
        release.set()
    # The one it was in, the backlog, what came after the release (shutdown's trace); not the rest.
    assert LISTENER_BACKLOG + 1 <= len(heard) < LISTENER_BACKLOG + 200
    assert "notification listeners are 1024 notifications behind" in caplog.text


def test_a_listener_may_close_the_client(wharf_path, script):
    closed = threading.Event()
    statuses = []
    client = WharfClient.spawn(wharf_path, script([{"dismiss": True}]))

    def listener(method, params):
        if method == "dialog/cancelled":
            statuses.append(client.close(timeout=10))
            closed.set()
    client.on_notification(listener)
    dialog = client.present_importer(["public.item"], timeout=10)
    with pytest.raises(DialogCancelled):
        dialog.result(timeout=10)
    assert closed.wait(15)
    assert statuses == [0]


def test_present_mover_moves_granted_files_and_the_frontend_settles_a_taken_name(wharf_path, tmp_path):
    source, folder = tmp_path / "src", tmp_path / "dst"
    source.mkdir()
    folder.mkdir()
    (source / "a.txt").write_text("new\n")
    (source / "b.txt").write_text("b\n")
    (folder / "a.txt").write_text("old\n")
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
        seen = {}

        def draw(presentation):
            if presentation.kind == "importer":
                presentation.choose([(source / "b.txt").as_uri(), (source / "a.txt").as_uri()])
                return
            seen["files"] = presentation.mover_urls
            with pytest.raises(RequestError) as refused:
                presentation.move(folder.as_uri())
            seen["refused"] = (refused.value.name, refused.value.data["names"])
            presentation.move(folder.as_uri(), conflict_resolution="keepBoth")

        client.on_present(draw)
        picked = client.present_importer(["public.plain-text"], multiple=True).result(timeout=10)
        with pytest.raises(RequestError) as denied:
            client.present_mover([(source / "nothing-granted.txt").as_uri()])
        assert denied.value.name == "accessDenied"
        moved = client.present_mover(picked, title="Move to").result(timeout=10)
        assert seen == {"files": picked, "refused": ("nameConflict", ["a.txt"])}
        assert moved == [(folder / "b.txt").as_uri(), (folder / "a 2.txt").as_uri()]
        assert (folder / "a.txt").read_text() == "old\n" and (folder / "a 2.txt").read_text() == "new\n"
        with client.access(moved[1]) as path:
            assert open(path).read() == "new\n"
        with pytest.raises(RequestError) as old:
            client.resolve_access(picked[1])
        assert old.value.name == "accessDenied"


def test_a_mover_the_script_cannot_answer_fails_with_name_conflict(wharf_path, script, tmp_path):
    (tmp_path / "a.txt").write_text("new\n")
    (tmp_path / "dst").mkdir()
    (tmp_path / "dst" / "a.txt").write_text("old\n")
    args = script([{"choose": [str(tmp_path / "a.txt")]}, {"choose": [str(tmp_path / "dst")]}])
    with WharfClient.spawn(wharf_path, args) as client:
        picked = client.present_importer(["public.plain-text"]).result(timeout=10)
        with pytest.raises(DialogFailed) as failed:
            client.present_mover(picked).result(timeout=10)
        assert failed.value.code == -32031
        assert (tmp_path / "a.txt").read_text() == "new\n"


def test_the_asyncio_client_presents_a_mover(wharf_path, tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "dst").mkdir()

    async def main():
        async with await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
            async def draw(presentation):
                if presentation.kind == "importer":
                    await presentation.choose([(tmp_path / "a.txt").as_uri()])
                else:
                    await presentation.move((tmp_path / "dst").as_uri())
            client.on_present(draw)
            picked = await (await client.present_importer(["public.plain-text"])).result()
            return await (await client.present_mover(picked)).result()
    assert asyncio.run(main()) == [(tmp_path / "dst" / "a.txt").as_uri()]
