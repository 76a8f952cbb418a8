"""The two APIs are one API; failing presenters end their dialogs; every wait has a timeout;
the version follows the server's; the binary is found where it is installed."""
import asyncio
import inspect
import os
import pathlib
import re
import subprocess
import sys
import threading

import pytest

import wharf_client
from wharf_client import (DialogFailed, ExportDocument, InitializeResult, WharfClient, WharfTimeout, find_wharf)
from wharf_client import client as sync_module
from wharf_client.aio import AsyncDialog, AsyncPresentation, AsyncWharfClient
from wharf_client.core import NO_HANDLER_MESSAGE

from test_client import fake

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
PAIRS = [(WharfClient, AsyncWharfClient), (wharf_client.Dialog, AsyncDialog),
         (wharf_client.Presentation, AsyncPresentation)]


def public(cls):
    return {name: member for name, member in inspect.getmembers(cls) if not name.startswith("_")}


@pytest.mark.parametrize("sync, aio", PAIRS, ids=lambda cls: cls.__name__)
def test_the_sync_and_asyncio_apis_have_the_same_methods_and_parameters(sync, aio):
    sync_members, aio_members = public(sync), public(aio)
    assert set(sync_members) == set(aio_members), \
        f"only in {sync.__name__}: {set(sync_members) - set(aio_members)}; only in {aio.__name__}: " \
        f"{set(aio_members) - set(sync_members)}"
    for name, member in sync_members.items():
        if not callable(member) or isinstance(member, type):
            continue
        twin = aio_members[name]
        assert list(inspect.signature(member).parameters) == list(inspect.signature(twin).parameters), name


def test_every_asyncio_wait_is_awaitable():
    # What waits in the sync client is a coroutine (or async iterator/context) in the asyncio one.
    for sync, aio in PAIRS:
        for name, member in public(aio).items():
            if not callable(member) or isinstance(member, type) or name in (
                    "notify", "exit", "on_present", "on_notification", "on_traffic", "dialog", "attach", "done"):
                continue
            waits = (inspect.iscoroutinefunction(member) or inspect.isasyncgenfunction(member)
                     or name == "access")  # an asynccontextmanager
            assert waits, f"{aio.__name__}.{name} does not await"


def threads():
    # Python before 3.12 waits for a subprocess with asyncio's ThreadedChildWatcher, whose
    # "asyncio-waitpid-N" thread is asyncio's own, not the client's.
    return sorted(t.name for t in threading.enumerate() if "waitpid-" not in t.name)


def test_the_asyncio_client_runs_on_the_event_loop_alone(wharf_path, tmp_path):
    # A whole frontend session (listing, a lazy export, a cancel) starts no thread.
    async def main():
        async def draw(presentation):
            if presentation.kind == "exporter":
                await presentation.save((tmp_path / "out.txt").as_uri())
            else:
                [entry async for entry in presentation.entries()]
        before = threads()
        async with await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True,
                                                on_present=draw) as client:
            exported = await client.present_exporter([ExportDocument(["public.plain-text"], filename="out",
                                                                     snapshot=lambda content_type: "lazy\n")])
            await exported.result(timeout=10)
            importer = await client.present_importer(["public.item"], default_directory=str(tmp_path))
            assert await importer.cancel() is True
            during = threads()
        return before, during
    before, during = asyncio.run(main())
    assert during == before
    assert (tmp_path / "out.txt").read_text() == "lazy\n"


def test_a_raising_handler_ends_the_dialog_with_its_message(wharf_path):
    def draw(presentation):
        raise RuntimeError("the file view crashed")
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True, on_present=draw) as client:
        dialog = client.present_importer(["public.item"])
        with pytest.raises(DialogFailed) as raised:
            dialog.result(timeout=10)
        assert raised.value.code == -32040
        assert "RuntimeError: the file view crashed" in raised.value.message


def test_presents_dialogs_without_a_handler_ends_the_dialog(wharf_path):
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True) as client:
        with pytest.raises(DialogFailed) as raised:
            client.present_importer(["public.item"]).result(timeout=10)
        assert raised.value.code == -32040 and NO_HANDLER_MESSAGE in raised.value.message


def test_the_asyncio_client_ends_a_dialog_whose_handler_raises_or_is_missing(wharf_path):
    async def main():
        async def draw(presentation):
            await presentation.list()
            raise ValueError("no room to draw")
        outcomes = []
        async with await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"],
                                                presents_dialogs=True) as client:
            for handler in (None, draw):
                if handler is not None:
                    client.on_present(handler)
                dialog = await client.present_importer(["public.item"])
                with pytest.raises(DialogFailed) as raised:
                    await dialog.result(timeout=10)
                outcomes.append((raised.value.code, raised.value.message))
        return outcomes
    [missing, raising] = asyncio.run(main())
    assert missing[0] == raising[0] == -32040
    assert NO_HANDLER_MESSAGE in missing[1] and "ValueError: no room to draw" in raising[1]


def test_every_wait_takes_a_timeout_and_says_what_it_waited_for(wharf_path, tmp_path):
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True,
                           on_present=lambda presentation: None) as client:
        dialog = client.present_importer(["public.item"])
        with pytest.raises(WharfTimeout, match=f"dialog {dialog.id} has not ended after 0.2 s"):
            dialog.result(timeout=0.2)
        with pytest.raises(TimeoutError):  # WharfTimeout is a TimeoutError too
            next(iter(dialog.events(timeout=0.2)))
        dialog.cancel()
    slow = fake("slow", tmp_path)
    with pytest.raises(WharfTimeout, match="ping got no answer within 0.2 s"):
        slow.ping(timeout=0.2)
    slow.close()


def test_asyncio_waits_take_a_timeout_too(wharf_path):
    async def main():
        async with await AsyncWharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True,
                                                on_present=lambda presentation: None) as client:
            dialog = await client.present_importer(["public.item"])
            with pytest.raises(WharfTimeout, match="has not ended"):
                await dialog.result(timeout=0.2)
            await dialog.cancel()
    asyncio.run(main())


def test_the_desktop_dialog_preference_is_sent_and_the_presenter_read(wharf_path):
    sent = []
    with WharfClient.spawn(wharf_path, ["--state-dir", ":memory:"], presents_dialogs=True,
                           prefers_desktop_dialogs=True, traffic=lambda way, message: sent.append(message)) as client:
        assert sent[0]["params"]["capabilities"] == {"presentsDialogs": True, "prefersDesktopDialogs": True}
        assert client.initialize_result is not None
        assert client.initialize_result.presenter in (None, "portal", "zenity", "kdialog", "frontend", "script")
    result = InitializeResult.from_json({"serverInfo": {"name": "wharf", "version": "0.2.0"}, "protocolVersion": "0.2",
                                         "capabilities": {"presenter": "portal"}})
    assert result.presenter == "portal"


def test_the_package_version_is_the_servers(wharf_path):
    # `wharf 0.1.0 (protocol 0.1)`
    server = subprocess.run([wharf_path, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
    declared = re.search(r'^version = "([^"]+)"', (PACKAGE / "pyproject.toml").read_text(), re.M).group(1)
    assert wharf_client.__version__ == declared == server


def test_an_installed_wharf_is_found_without_wharf_or_path(tmp_path, monkeypatch):
    installed = tmp_path / "wharf"
    installed.write_text("#!/bin/sh\n")
    installed.chmod(0o755)
    monkeypatch.delenv("WHARF", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sync_module, "INSTALLED_LOCATIONS", ("/nonexistent/wharf", str(installed)))
    assert find_wharf() == str(installed)
    assert find_wharf("/given/wharf") == "/given/wharf"
    monkeypatch.setattr(sync_module, "INSTALLED_LOCATIONS", ("/nonexistent/wharf",))
    with pytest.raises(wharf_client.WharfError, match="cannot find wharf"):
        find_wharf()


def test_spawning_a_wharf_that_does_not_exist_raises_file_not_found_naming_it(tmp_path):
    # What the README says: find_wharf() does not check a path it is given, and Popen (or
    # asyncio's create_subprocess_exec) raises FileNotFoundError, not WharfError.
    missing = str(tmp_path / "no-such-wharf")
    with pytest.raises(FileNotFoundError) as raised:
        WharfClient.spawn(missing)
    assert missing in str(raised.value) and raised.value.filename == missing
    with pytest.raises(FileNotFoundError) as raised:
        asyncio.run(AsyncWharfClient.spawn(missing))
    assert missing in str(raised.value) and raised.value.filename == missing


def test_the_package_is_mypy_strict_clean():
    # mypy is pinned in clients/python/requirements-dev.txt; `make test-clients` runs this.
    mypy = pathlib.Path(sys.executable).parent / "mypy"
    if not mypy.exists():
        pytest.fail("mypy is not installed next to this Python: make test-clients installs it")
    finished = subprocess.run([str(mypy), "--strict", "--no-incremental", "-p", "wharf_client"],
                              cwd=PACKAGE / "src", capture_output=True, text=True,
                              env={**os.environ, "MYPYPATH": str(PACKAGE / "src")})
    assert finished.returncode == 0, finished.stdout + finished.stderr


def test_initialize_takes_a_timeout_as_every_request_method_does(tmp_path):
    # The README: "Each request method takes timeout=". initialize did not, so a client attached
    # to streams could bound its handshake only through the client's default for every request.
    silent = subprocess.Popen(["sleep", "30"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        client = WharfClient.attach(silent.stdout, silent.stdin)
        with pytest.raises(WharfTimeout, match="initialize got no answer within 0.2 s"):
            client.initialize(timeout=0.2)

        async def main():
            process = await asyncio.create_subprocess_exec("sleep", "30", stdin=asyncio.subprocess.PIPE,
                                                           stdout=asyncio.subprocess.PIPE)
            try:
                attached = AsyncWharfClient.attach(process.stdout, process.stdin)
                with pytest.raises(WharfTimeout, match="initialize got no answer within 0.2 s"):
                    await attached.initialize(timeout=0.2)
            finally:
                process.kill()
                await process.wait()
        asyncio.run(main())
    finally:
        silent.kill()
        silent.wait()
