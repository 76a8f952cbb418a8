"""`wharf pick` and `wharf save --presenter terminal` driven as a person would, in tmux: keys
sent, the screen read back, the paths printed, the files written, and the terminal's mode
(`stty -g`) compared before and after every way out."""
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import WHARF, Pane

NON_UTF8 = b"caf\xff.txt"
WIDE = "日本語の名前.txt"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    root.mkdir()
    (root / "alpha.txt").write_text("alpha\n")
    (root / "beta.txt").write_text("beta\n")
    (root / "notes.md").write_text("# notes\n")
    (root / "picture.png").write_bytes(PNG)
    (root / ".secret.txt").write_text("hidden\n")
    (root / "sub").mkdir()
    (root / "sub" / "inner.txt").write_text("inner\n")
    (root / WIDE).write_text("wide\n")
    with open(os.path.join(os.fsencode(root), NON_UTF8), "wb") as file:
        file.write(b"bytes\n")
    return root


@pytest.fixture
def pane(tmp_path: Path):
    work = tmp_path / "pane"
    work.mkdir()
    pane = Pane(work)
    yield pane
    pane.kill()


def pick(*arguments: str) -> list[str]:
    return [WHARF, "pick", "--presenter", "terminal", "--state-dir", ":memory:", *arguments]


def save(*arguments: str) -> list[str]:
    return [WHARF, "save", "--presenter", "terminal", "--state-dir", ":memory:", *arguments]


def printed(pane: Pane) -> list[bytes]:
    return pane.output.read_bytes().split(b"\n")[:-1]


def finish(pane: Pane, status: int) -> None:
    """The command ended with `status`, the terminal as it was found, the picker off screen."""
    assert pane.wait_exit() == status, pane.errors.read_text(errors="replace")
    assert pane.terminal_given_back()
    assert "q cancel" not in pane.screen()


def test_one_file_is_picked_with_the_filter_and_enter(pane: Pane, folder: Path):
    pane.start(pick("--type", "public.plain-text", "--title", "Open a note"), cwd=folder)
    screen = pane.wait_text("q cancel")
    first = screen.split("\n")
    assert first[0].startswith(" Open a note · Plain text · " + str(folder))
    # Folders first, then names in Wharf's order.
    listed = [line.strip() for line in first[1:8]]
    assert listed[0] == "sub/"
    assert listed.index("alpha.txt") < listed.index("beta.txt") < listed.index("notes.md")
    pane.keys("/")
    pane.type("beta")
    pane.wait_text("/beta")
    pane.keys("Enter")
    pane.keys("Enter")
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(folder / "beta.txt")]


def test_several_files_are_marked_with_tab(pane: Pane, folder: Path):
    pane.start(pick("--type", "public.plain-text", "--multiple"), cwd=folder)
    pane.wait_text("Tab mark")
    pane.keys("/")
    pane.type("*.txt")
    pane.keys("Enter")
    pane.wait_text("alpha.txt")
    pane.keys("Tab")
    pane.keys("Tab")
    pane.wait_text("» Open 2 marked")
    screen = pane.screen()
    assert "* alpha.txt" in screen and "* beta.txt" in screen
    pane.keys("Home")
    pane.keys("Enter")
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(folder / "alpha.txt"), os.fsencode(folder / "beta.txt")]


def test_a_png_is_dimmed_in_a_text_picker_with_its_reason(pane: Pane, folder: Path):
    pane.start(pick("--type", "public.plain-text"), cwd=folder)
    pane.wait_text("picture.png")
    dimmed = [line for line in pane.screen(attributes=True).split("\n") if "picture.png" in line]
    assert dimmed and "\x1b[2m" in dimmed[0], dimmed
    plain = [line for line in pane.screen(attributes=True).split("\n") if "alpha.txt" in line]
    assert "\x1b[2m" not in plain[0]
    pane.keys("/")
    pane.type("picture")
    pane.keys("Enter")
    status = pane.wait_text("public.png").split("\n")[-3]
    assert status.strip() == "it is of type public.png, and this dialog takes only public.plain-text", status
    # Chosen anyway: refused, with the reason, and the picker stays.
    pane.keys("Enter")
    pane.wait_text("picture.png cannot be chosen")
    pane.keys("Escape")
    finish(pane, 1)
    assert printed(pane) == []


def test_the_filter_narrows_as_you_type_and_escape_clears_it(pane: Pane, folder: Path):
    pane.start(pick(), cwd=folder)
    pane.wait_text("alpha.txt")
    pane.keys("/")
    pane.type("NOT")
    screen = pane.wait_text("/NOT")
    assert "notes.md" in screen and "alpha.txt" not in screen and "sub/" not in screen
    assert "1 of 7 entries" in screen
    pane.keys("Escape")
    screen = pane.wait_text("alpha.txt")
    assert "7 entries" in screen
    pane.keys("q")
    finish(pane, 1)


def test_hidden_files_are_shown_with_dot(pane: Pane, folder: Path):
    pane.start(pick(), cwd=folder)
    screen = pane.wait_text("alpha.txt")
    assert ".secret.txt" not in screen
    pane.keys(".")
    pane.wait_text(".secret.txt")
    pane.wait_text("hidden files shown")
    pane.keys("/")
    pane.type("secret")
    pane.keys("Enter")
    pane.keys("Enter")
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(folder / ".secret.txt")]


def test_a_folder_picker_chooses_the_folder_under_the_cursor_or_the_one_shown(pane: Pane, folder: Path):
    pane.start(pick("--directory"), cwd=folder)
    pane.wait_text("» Choose this folder")
    pane.keys("Down")
    pane.keys("Tab")
    pane.wait_text("» Choose 1 marked")
    pane.keys("Home")
    pane.keys("Enter")
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(folder / "sub")]

    pane.kill()
    pane.start(pick("--directory"), cwd=folder)
    pane.wait_text("» Choose this folder")
    pane.keys("Down")
    pane.keys("Enter")     # opens sub
    pane.wait_text(str(folder / "sub"))
    pane.keys("Home")
    pane.keys("Enter")     # chooses the folder shown
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(folder / "sub")]


def test_up_and_home_move_between_folders(pane: Pane, folder: Path, tmp_path: Path):
    pane.start(pick(), cwd=folder / "sub", environment={"HOME": str(tmp_path)})
    pane.wait_text("inner.txt")
    pane.keys("-")
    pane.wait_text("alpha.txt")
    pane.keys("~")
    pane.wait_text("files/")
    pane.keys("?")
    pane.wait_text("show or hide hidden files")
    pane.keys("x")
    pane.wait_gone("show or hide hidden files")
    pane.keys("Escape")
    finish(pane, 1)


def test_save_with_the_suggested_name(pane: Pane, folder: Path, tmp_path: Path):
    source = tmp_path / "input"
    source.write_text("saved words\n")
    pane.start(save("--name", "report.txt"), cwd=folder, stdin=str(source))
    pane.wait_text("» Save here as report.txt")
    pane.keys("Enter")
    pane.wait_text("Name: report.txt")
    pane.keys("Enter")
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(folder / "report.txt")]
    assert (folder / "report.txt").read_text() == "saved words\n"


def test_save_with_a_new_name(pane: Pane, folder: Path, tmp_path: Path):
    source = tmp_path / "input"
    source.write_text("renamed\n")
    pane.start(save("--name", "report.txt"), cwd=folder, stdin=str(source))
    pane.wait_text("» Save here as report.txt")
    pane.keys("Enter")
    pane.wait_text("Name: report.txt")
    pane.keys("C-u")
    pane.type("other name.txt")
    pane.wait_text("Name: other name.txt")
    pane.keys("Enter")
    finish(pane, 0)
    assert (folder / "other name.txt").read_text() == "renamed\n"
    assert not (folder / "report.txt").exists()


def test_replace_answered_yes_replaces_and_no_keeps(pane: Pane, folder: Path, tmp_path: Path):
    source = tmp_path / "input"
    source.write_text("new contents\n")
    pane.start(save("--name", "alpha.txt"), cwd=folder, stdin=str(source))
    pane.wait_text("» Save here as alpha.txt")
    pane.keys("Enter")
    pane.keys("Enter")
    pane.wait_text("“alpha.txt” already exists. Replace? (y/n)")
    pane.keys("n")
    pane.wait_text("Name: alpha.txt")
    assert (folder / "alpha.txt").read_text() == "alpha\n"
    pane.keys("Enter")
    pane.wait_text("Replace? (y/n)")
    pane.keys("y")
    finish(pane, 0)
    assert (folder / "alpha.txt").read_text() == "new contents\n"

    pane.kill()
    pane.start(save("--name", "beta.txt"), cwd=folder, stdin=str(source))
    pane.wait_text("» Save here as beta.txt")
    pane.keys("Enter")
    pane.keys("Enter")
    pane.wait_text("Replace? (y/n)")
    pane.keys("n")
    pane.keys("C-u")
    pane.type("gamma.txt")
    pane.keys("Enter")
    finish(pane, 0)
    assert (folder / "beta.txt").read_text() == "beta\n"
    assert (folder / "gamma.txt").read_text() == "new contents\n"


def test_a_resized_window_is_drawn_again(pane: Pane, folder: Path):
    pane.start(pick(), cwd=folder)
    pane.wait_text("q cancel")
    assert pane.lines()[29].startswith(" Enter open/choose")
    pane.tmux("resize-window", "-t", "main", "-x", "50", "-y", "12")

    def redrawn(screen: str) -> bool:
        lines = screen.split("\n")
        return (len(lines) >= 12 and lines[11].startswith(" Enter open/choose") and lines[11].rstrip().endswith("…")
                and lines[10].strip() == "7 entries")

    # The frame arrives in pieces: wait for all of it (the keys cut to 50 columns, the status above).
    pane.wait_for(redrawn, "the frame redrawn for 50 × 12")
    assert all(len(line) <= 50 for line in pane.lines())
    pane.keys("Escape")
    finish(pane, 1)


@pytest.mark.parametrize("key", ["Escape", "q", "C-c"])
def test_cancel_keys_end_with_1_and_give_the_terminal_back(pane: Pane, folder: Path, key: str):
    pane.start(pick(), cwd=folder)
    pane.wait_text("alpha.txt")
    pane.keys(key)
    finish(pane, 1)
    assert printed(pane) == []


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_gives_the_terminal_back(pane: Pane, folder: Path, number: int):
    pane.start(pick(), cwd=folder)
    pane.wait_text("alpha.txt")
    os.kill(pane.process_id(), number)
    finish(pane, 128 + number)


def test_a_name_that_is_not_utf8_is_shown_escaped_and_chosen_byte_for_byte(pane: Pane, folder: Path):
    pane.start(pick(), cwd=folder)
    pane.wait_text("caf\\xFF.txt")
    pane.keys("/")
    pane.type("caf")
    pane.keys("Enter")
    pane.keys("Enter")
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(folder) + b"/" + NON_UTF8]


def test_a_wide_character_name_lines_up_and_is_chosen_byte_for_byte(pane: Pane, folder: Path):
    pane.start(pick(), cwd=folder)
    screen = pane.wait_text(WIDE)
    row = next(line for line in screen.split("\n") if WIDE in line)
    assert row.startswith("  " + WIDE)
    pane.keys("/")
    pane.type("日本")
    pane.wait_text("/日本")
    pane.keys("Enter")
    pane.keys("Enter")
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(folder / WIDE)]


def test_a_100000_entry_folder_answers_at_once_and_lists_it_all(pane: Pane, tmp_path: Path):
    big = tmp_path / "big"
    big.mkdir()
    fd = os.open(big, os.O_RDONLY)
    try:
        for index in range(100_000):
            os.close(os.open(f"f{index:06d}.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    pane.start(pick("--type", "public.plain-text"), cwd=big)
    pane.wait_text("f000000.txt", timeout=30)
    pane.wait_text("100000 entries", timeout=30)
    pane.keys("/")
    pane.type("99998")
    screen = pane.wait_text("1 of 100000 entries")
    assert "f099998.txt" in screen
    pane.keys("Enter")
    pane.keys("Enter")
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(big / "f099998.txt")]


CLIENT = r"""
import json, subprocess, sys, time
wharf, mode, directory = sys.argv[1], sys.argv[2], sys.argv[3]
server = subprocess.Popen([wharf, "--presenter", "terminal", "--state-dir", ":memory:"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(message):
    server.stdin.write((json.dumps(message) + "\n").encode()); server.stdin.flush()
def receive():
    return json.loads(server.stdout.readline())
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t"}}})
print("initialize", json.dumps(receive()["result"]["capabilities"]["presenter"]), flush=True)
options = {"defaultDirectory": directory}
if mode == "timeout":
    options["timeoutMs"] = 1500
if mode == "cancel":
    options.update(title="Pick a Log", message="The newest is best", confirmationLabel="Import")
if mode == "filters":
    options.update(filters=[{"name": "Text", "predicate": {"nameMatches": "*.txt"}},
                            {"name": "Markdown", "predicate": {"nameMatches": "*.md"}}],
                   choices=[{"id": "encoding", "label": "Encoding",
                             "options": [{"id": "utf8", "label": "UTF-8"}, {"id": "latin1", "label": "Latin-1"}]},
                            {"id": "readonly", "label": "Read only"}])
if mode == "export2":
    send({"jsonrpc": "2.0", "id": 2, "method": "presentExporter", "params": {"options": options, "documents": [
        {"filename": "one.txt", "writableContentTypes": ["public.plain-text"], "contents": {"text": "first\n"}},
        {"filename": "two.txt", "writableContentTypes": ["public.plain-text"], "contents": {"text": "second\n"}}]}})
elif mode == "export-types":
    send({"jsonrpc": "2.0", "id": 2, "method": "presentExporter", "params": {"options": options, "documents": [
        {"filename": "notes", "writableContentTypes": ["public.plain-text", "public.html"], "contents": {"text": "<p>hi</p>\n"}}]}})
elif mode == "two":
    send({"jsonrpc": "2.0", "id": 2, "method": "presentImporter",
          "params": {"allowedContentTypes": ["public.item"], "options": dict(options, title="First")}})
    send({"jsonrpc": "2.0", "id": 3, "method": "presentImporter",
          "params": {"allowedContentTypes": ["public.item"], "options": dict(options, title="Second")}})
    ended = []
    while len(ended) < 2:
        message = receive()
        if message.get("method") in ("dialog/cancelled", "dialog/completed"):
            ended.append(message["params"]["dialogId"])
    print("result", json.dumps({"ended": ended}), flush=True)
    send({"jsonrpc": "2.0", "id": 9, "method": "shutdown"}); receive()
    send({"jsonrpc": "2.0", "method": "exit"}); server.wait()
    sys.exit(0)
else:
    send({"jsonrpc": "2.0", "id": 2, "method": "presentImporter",
          "params": {"allowedContentTypes": ["public.data" if mode == "filters" else "public.item"], "options": options}})
dialog = receive()["result"]["dialogId"]
time.sleep(1.0)
if mode == "cancel":
    send({"jsonrpc": "2.0", "id": 3, "method": "cancel", "params": {"dialogId": dialog}})
if mode == "disconnect":
    server.stdin.close(); server.wait(); print("server", server.returncode, flush=True); sys.exit(0)
while True:
    message = receive()
    if message.get("method") in ("dialog/cancelled", "dialog/completed", "dialog/failed"):
        print("ended", message["method"], json.dumps(message["params"].get("reason")), flush=True)
        print("result", json.dumps(message["params"]), flush=True)
        time.sleep(2)   # the server still runs: its picker must be gone already
        break
send({"jsonrpc": "2.0", "id": 9, "method": "shutdown"}); receive()
send({"jsonrpc": "2.0", "method": "exit"}); server.wait()
"""


@pytest.mark.parametrize("mode", ["cancel", "timeout", "disconnect"])
def test_the_app_ending_the_dialog_gives_the_terminal_back(pane: Pane, folder: Path, tmp_path: Path, mode: str):
    client = tmp_path / "client.py"
    client.write_text(CLIENT)
    pane.start([sys.executable, str(client), WHARF, mode, str(folder)], cwd=folder)
    pane.wait_text("alpha.txt")
    if mode == "cancel":
        lines = pane.lines()
        assert lines[0].startswith(" Pick a Log · All files · ") and lines[1] == " The newest is best"
        assert lines[-2].startswith(" Enter open/Import · ")
    if mode != "disconnect":
        deadline = time.monotonic() + 10
        while "ended" not in pane.output.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        pane.wait_gone("q cancel", timeout=1)
        assert pane.status.exists() is False, "the client ended too soon to tell"
    pane.wait_exit()
    assert pane.terminal_given_back()
    assert "q cancel" not in pane.screen()
    said = pane.output.read_text()
    assert 'initialize "terminal"' in said
    if mode == "cancel":
        assert 'ended dialog/cancelled "client"' in said
    elif mode == "timeout":
        assert 'ended dialog/cancelled "timeout"' in said
    else:
        assert "server " in said


def test_the_stdio_server_never_draws_on_the_terminal_unless_named(folder: Path):
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t"}}},
    ]
    run = subprocess.run([WHARF, "--state-dir", ":memory:"], input="".join(json.dumps(m) + "\n" for m in messages).encode(),
                         capture_output=True, env={"PATH": "/usr/bin:/bin", "TERM": "xterm"}, timeout=30)
    answer = json.loads(run.stdout.split(b"\n")[0])
    capabilities = answer["result"]["capabilities"]
    assert "terminal" not in capabilities["presenters"], answer
    assert "terminal" not in capabilities.get("unavailablePresenters", {}), answer


def no_terminal(command: list[str], environment: dict[str, str]) -> subprocess.CompletedProcess:
    """Runs `command` with no controlling terminal (a new session) and no desktop."""
    return subprocess.run(["setsid", "-w", *command], stdin=subprocess.DEVNULL, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": environment.get("HOME", "/nonexistent"), **environment}, timeout=30)


def test_no_terminal_and_no_desktop_is_explained_to_a_shell_user(folder: Path):
    run = no_terminal([WHARF, "pick", "--state-dir", ":memory:"], {"TERM": "xterm", "XDG_RUNTIME_DIR": "/nonexistent"})
    assert run.returncode == 2
    message = run.stderr.decode()
    assert "no dialog can be shown here" in message
    assert "terminal: no controlling terminal" in message
    assert "zenity" in message and "--presenter script:FILE" in message
    assert "capabilities" not in message


@pytest.mark.parametrize("term, expected", [("dumb", "TERM=dumb"), ("", "TERM is not set"), ("no-such-term", "no terminfo entry for TERM=no-such-term")])
def test_terminals_that_cannot_draw_are_refused_with_a_reason(pane: Pane, folder: Path, term: str, expected: str):
    pane.start(["env", f"TERM={term}", *pick()], cwd=folder)
    assert pane.wait_exit() == 2
    assert expected in pane.errors.read_text()
    assert pane.terminal_given_back()


def test_every_command_answers_help():
    for words in (["pick"], ["save"], ["types"], ["types", "identify"], ["access"], ["access", "revoke"]):
        run = subprocess.run([WHARF, *words, "--help"], capture_output=True, timeout=30)
        assert run.returncode == 0, (words, run.stderr)
        assert run.stdout.startswith(b"Usage: wharf " + " ".join(words).encode()), run.stdout[:80]
    run = subprocess.run([WHARF, "pick", "--help"], capture_output=True, timeout=30)
    assert b"terminal" in run.stdout and b"--presenter KIND" in run.stdout


def run_client(pane: Pane, tmp_path: Path, folder: Path, mode: str):
    client = tmp_path / "client.py"
    client.write_text(CLIENT)
    pane.start([sys.executable, str(client), WHARF, mode, str(folder)], cwd=folder)


def client_result(pane: Pane) -> dict:
    assert pane.wait_exit() == 0, pane.errors.read_text()
    assert pane.terminal_given_back()
    line = next(line for line in pane.output.read_text().split("\n") if line.startswith("result "))
    return json.loads(line[len("result "):])


def test_several_documents_are_saved_into_the_folder_chosen(pane: Pane, folder: Path, tmp_path: Path):
    (folder / "sub" / "two.txt").write_text("old\n")
    run_client(pane, tmp_path, folder, "export2")
    pane.wait_text("» Save 2 documents here")
    pane.keys("Down")
    pane.keys("Enter")          # into sub
    pane.wait_text("inner.txt")
    pane.keys("Home")
    pane.keys("Enter")
    pane.wait_text("“two.txt” already exists here. Replace? (y/n)")
    pane.keys("n")
    pane.wait_gone("Replace?")
    assert (folder / "sub" / "two.txt").read_text() == "old\n"
    pane.keys("Enter")
    pane.wait_text("Replace? (y/n)")
    pane.keys("y")
    result = client_result(pane)
    assert (folder / "sub" / "one.txt").read_text() == "first\n"
    assert (folder / "sub" / "two.txt").read_text() == "second\n"
    assert len(result["urls"]) == 2


def test_the_type_menu_switches_an_exporters_type_and_its_extension(pane: Pane, folder: Path, tmp_path: Path):
    run_client(pane, tmp_path, folder, "export-types")
    pane.wait_text("» Save here as notes.txt")
    pane.keys("t")
    pane.wait_text("Type:")
    pane.keys("Down")
    pane.keys("Enter")
    screen = pane.wait_text("» Save here as notes.html")
    assert "HTML" in screen.split("\n")[0]
    pane.keys("Enter")
    pane.wait_text("Name: notes.html")
    pane.keys("Enter")
    result = client_result(pane)
    assert (folder / "notes.html").read_text() == "<p>hi</p>\n"
    assert result["contentTypes"] == ["public.html"] or result.get("contentType") == "public.html", result


def test_the_type_menu_narrows_an_importer_to_one_of_its_types(pane: Pane, folder: Path):
    pane.start(pick("--type", "public.plain-text", "--type", "public.png"), cwd=folder)
    screen = pane.wait_text("picture.png")
    assert "alpha.txt" in screen
    pane.keys("t")
    pane.wait_text("Type:")
    pane.keys("Down", "Down")
    pane.keys("Enter")
    pane.wait_gone("Type:")
    screen = pane.wait_gone("alpha.txt")
    assert "picture.png" in screen and "sub/" in screen
    assert screen.split("\n")[0].startswith(" Open · PNG image · ")
    pane.keys("Enter")         # sub/
    pane.keys("-")
    pane.wait_text("picture.png")
    pane.keys("/")
    pane.type("pic")
    pane.keys("Enter", "Enter")
    finish(pane, 0)
    assert printed(pane) == [os.fsencode(folder / "picture.png")]


def test_the_type_menu_switches_the_apps_filters_and_c_sets_its_choices(pane: Pane, folder: Path, tmp_path: Path):
    run_client(pane, tmp_path, folder, "filters")
    screen = pane.wait_text("alpha.txt")
    assert screen.split("\n")[0].startswith(" Open · Text · "), screen
    assert " · t filter · c choices · " in screen.split("\n")[-2], screen
    pane.keys("t")
    pane.wait_text("Filter:")
    pane.keys("Down", "Enter")
    screen = pane.wait_gone("Filter:")
    assert screen.split("\n")[0].startswith(" Open · Markdown · "), screen
    # The selected filter is enforced: a text file is refused, saying which filter.
    pane.keys("/")
    pane.type("alpha")
    pane.keys("Enter", "Enter")
    pane.wait_text("alpha.txt cannot be chosen: it does not match the filter “Markdown”")
    pane.keys("c")
    screen = pane.wait_text("Choices:")
    assert "Encoding: ‹UTF-8› (1/2)" in screen and "[ ] Read only" in screen, screen
    pane.keys("Enter")
    pane.wait_text("Encoding: ‹Latin-1› (2/2)")
    pane.keys("Down", "Space")
    pane.wait_text("[x] Read only")
    pane.keys("Escape")
    pane.wait_gone("Choices:")
    pane.keys("/")
    pane.type("notes")
    pane.keys("Enter", "Enter")
    result = client_result(pane)
    assert result["urls"] == [(folder / "notes.md").as_uri()], result
    assert result["filter"] == 1, result
    assert result["choices"] == {"encoding": "latin1", "readonly": "true"}, result


def test_pick_uses_the_terminal_when_no_desktop_dialog_is_usable(pane: Pane, folder: Path):
    pane.start(["env", "-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent",
                "PATH=/nonexistent:/usr/bin:/bin", WHARF, "pick", "--state-dir", ":memory:"], cwd=folder)
    pane.wait_text("alpha.txt")
    pane.keys("Escape")
    finish(pane, 1)


def test_a_crash_gives_the_terminal_back(pane: Pane, folder: Path):
    pane.start(pick(), cwd=folder, environment={"SWIFT_BACKTRACE": "enable=no"})
    pane.wait_text("alpha.txt")
    os.kill(pane.process_id(), signal.SIGSEGV)
    finish(pane, 128 + signal.SIGSEGV)


def test_dialogs_take_the_terminal_in_turn(pane: Pane, folder: Path, tmp_path: Path):
    run_client(pane, tmp_path, folder, "two")
    pane.wait_text(" First · ")
    assert " Second · " not in pane.screen()
    pane.keys("Escape")
    pane.wait_text(" Second · ")
    pane.keys("/")
    pane.type("alpha")
    pane.keys("Enter", "Enter")
    result = client_result(pane)
    assert len(result["ended"]) == 2


def test_a_terminal_that_cannot_dim_or_switch_screens_still_shows_what_cannot_be_chosen(pane: Pane, folder: Path):
    pane.start(["env", "TERM=vt100", *pick("--type", "public.plain-text")], cwd=folder)
    screen = pane.wait_text("(picture.png)")
    assert "  alpha.txt" in screen and "(alpha.txt)" not in screen
    pane.keys("Escape")
    finish(pane, 1)
    assert "alpha.txt" not in pane.screen()   # no alternate screen: cleared on the way out


@pytest.mark.parametrize("term, has_terminal, reason", [
    ("xterm", False, "no controlling terminal (/dev/tty: "),
    ("", False, "no controlling terminal (/dev/tty: "),   # ssh without -t: neither; the terminal is what to fix
    ("dumb", True, "TERM=dumb"),
])
def test_initialize_says_why_the_terminal_presenter_cannot_serve(term: str, has_terminal: bool, reason: str):
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t"}}}) + "\n"
    # A new session: no controlling terminal, unless it opens a pseudo-terminal (which a session
    # leader's first terminal becomes); the protocol's streams stay pipes.
    command = [WHARF, "--presenter", "terminal", "--state-dir", ":memory:"]
    controller, terminal = os.openpty()
    try:
        if has_terminal:
            command = ["sh", "-c", 'exec 3<>"$0"; exec "$@"', os.ttyname(terminal), *command]
        run = subprocess.run(["setsid", "-w", *command], input=initialize.encode(),
                             capture_output=True, env={"PATH": "/usr/bin:/bin", "TERM": term}, timeout=30)
    finally:
        os.close(controller)
        os.close(terminal)
    capabilities = json.loads(run.stdout.split(b"\n")[0])["result"]["capabilities"]
    assert capabilities["presenter"] is None
    assert capabilities["unavailablePresenters"]["terminal"].startswith(reason), capabilities


def move(*arguments: str) -> list[str]:
    return [WHARF, "move", "--presenter", "terminal", "--state-dir", ":memory:", *arguments]


def test_a_mover_moves_into_the_folder_shown_asking_about_a_taken_name(pane: Pane, folder: Path):
    (folder / "sub" / "alpha.txt").write_text("already here\n")
    pane.start(move(str(folder / "alpha.txt"), str(folder / "beta.txt")), cwd=folder,
               environment={"HOME": str(folder)})
    pane.wait_text("» Move here")
    pane.keys("Down")
    pane.keys("Enter")     # opens sub
    pane.wait_text("Move to a Folder · ~/sub")
    pane.keys("Home")
    pane.keys("Enter")     # moves into the folder shown: alpha.txt is taken there
    pane.wait_text("Replace, Keep both or Cancel")
    pane.keys("c")         # back to the list; nothing moved
    pane.wait_gone("Replace, Keep both or Cancel")
    assert (folder / "alpha.txt").exists() and (folder / "beta.txt").exists()
    pane.keys("Home")
    pane.keys("Enter")
    pane.wait_text("Replace, Keep both or Cancel")
    pane.keys("k")         # keep both: the moved file takes a free name
    finish(pane, 0)
    assert not (folder / "alpha.txt").exists() and not (folder / "beta.txt").exists()
    assert (folder / "sub" / "alpha.txt").read_text() == "already here\n"
    assert (folder / "sub" / "beta.txt").read_text() == "beta\n"
    moved = printed(pane)
    assert len(moved) == 2 and moved[1] == os.fsencode(folder / "sub" / "beta.txt")
    assert moved[0] != os.fsencode(folder / "sub" / "alpha.txt")
    assert Path(os.fsdecode(moved[0])).parent == folder / "sub"
    assert Path(os.fsdecode(moved[0])).read_text() == "alpha\n"
