"""`--presenter fzf|lf|nnn|ranger|vifm`: each tool driven with real keys in a tmux pane.

For every tool: one pick, one refused pick that reopens the tool, one cancel (exit 1), each
with the terminal's modes compared before and after; a missing tool fails with a clear
message (exit 2). yazi is not in Debian and is not tested here."""
import json
import os
import pathlib
import stat
import subprocess
import sys
import time

import pytest

TOOLS = ["fzf", "lf", "nnn", "ranger", "vifm"]
TEXT = ["--type", "public.plain-text"]


@pytest.fixture
def home(tmp_path) -> pathlib.Path:
    """A folder of two text files, an image and a text file whose name holds a newline."""
    folder = tmp_path / "home"
    folder.mkdir()
    (folder / "a.txt").write_text("a\n")
    (folder / "b.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "z\nz.txt").write_text("c\n")
    (folder / "e.txt").write_text("e\n")
    return folder


def find(pane, name: str) -> None:
    """Puts the tool's cursor on `name` (its own search, then out of it)."""
    tool = pane.tool
    if tool == "nnn":
        # nnn lists a.txt, b.png, e.txt, z?z.txt; Home goes to the first.
        pane.keys("Home")
        for _ in range({"a.txt": 0, "b.png": 1, "e.txt": 2, "z\nz.txt": 3}[name]):
            pane.keys("j")
        return
    if tool == "ranger":
        # ranger names the file under the cursor on its first line; it may drop keys typed
        # while it is still setting the terminal up, so each move is watched.
        wanted = "home/" + name.split("\n")[0]
        for _ in range(12):
            first = pane.screen().split("\n")[0]
            if wanted in first:
                time.sleep(0.2)
                return
            pane.keys("j")
            deadline = time.monotonic() + 2
            while pane.screen().split("\n")[0] == first and time.monotonic() < deadline:
                time.sleep(0.05)
        raise AssertionError(f"ranger never reached {name!r}:\n{pane.screen()}")
    if tool == "fzf":
        pane.text(name)
        return
    if name == "z\nz.txt":
        pane.keys("G")   # the last name, in every tool's order
        return
    pane.text("/" + name)
    pane.keys("Enter")


def choose(pane) -> None:
    """Chooses the file under the cursor."""
    pane.keys({"fzf": "Enter", "nnn": "Enter"}.get(pane.tool, "l"))


def quit_tool(pane) -> None:
    if pane.tool == "fzf":
        pane.keys("Escape")
    elif pane.tool == "vifm":
        pane.text(":q")
        pane.keys("Enter")
    else:
        pane.keys("q")


def start(run_in_pane, tool: str, home: pathlib.Path, *arguments: str, path: str | None = None):
    pane = run_in_pane(home, "pick", "--presenter", tool, *arguments, path=path)
    pane.tool = tool
    return pane


def wait_tool(pane, home: pathlib.Path):
    """Waits until the tool shows the folder's files."""
    return pane.wait_for("e.txt")


def wait_gone(pane, text: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while text in pane.screen():
        assert time.monotonic() < deadline, f"{text!r} stayed on the screen:\n{pane.screen()}"
        time.sleep(0.1)


@pytest.mark.parametrize("tool", TOOLS)
def test_a_file_is_picked(tool, home, run_in_pane):
    pane = start(run_in_pane, tool, home, *TEXT)
    wait_tool(pane, home)
    find(pane, "e.txt")
    choose(pane)
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(home / "e.txt") + b"\n"), err


@pytest.mark.parametrize("tool", ["lf", "nnn", "ranger", "vifm"])
def test_an_image_in_a_text_picker_is_refused_saying_why_and_the_tool_reopens(tool, home, run_in_pane):
    pane = start(run_in_pane, tool, home, *TEXT)
    wait_tool(pane, home)
    find(pane, "b.png")
    choose(pane)
    screen = pane.wait_for("cannot be chosen")
    assert "b.png cannot be chosen: it is of type public.png" in screen.replace("\n", ""), screen
    pane.keys("Enter")
    wait_gone(pane, "cannot be chosen")
    wait_tool(pane, home)
    find(pane, "a.txt")
    choose(pane)
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(home / "a.txt") + b"\n"), err


@pytest.mark.parametrize("tool", ["lf", "nnn"])
def test_the_tool_reopens_on_the_file_it_refused(tool, home, run_in_pane):
    pane = start(run_in_pane, tool, home, *TEXT)
    wait_tool(pane, home)
    find(pane, "b.png")
    choose(pane)
    pane.wait_for("cannot be chosen")
    pane.keys("Enter")
    wait_gone(pane, "cannot be chosen")
    wait_tool(pane, home)
    choose(pane)   # without moving: the cursor is on b.png again
    assert "b.png cannot be chosen" in pane.wait_for("cannot be chosen")
    pane.keys("q")
    status, out, err = pane.finish()
    assert (status, out) == (1, b""), err


def test_the_same_pick_refused_five_times_in_a_row_fails_the_dialog(home, run_in_pane):
    """A tool that keeps answering the same refused pick cannot reopen for ever."""
    pane = start(run_in_pane, "lf", home, *TEXT)
    wait_tool(pane, home)
    find(pane, "b.png")
    for attempt in range(4):
        choose(pane)   # lf reopens on b.png each time
        pane.wait_for("cannot be chosen")
        pane.keys("Enter")
        wait_gone(pane, "cannot be chosen")
        wait_tool(pane, home)
    choose(pane)
    status, out, err = pane.finish()
    assert (status, out) == (2, b"")
    assert err.decode().startswith("wharf: lf returned the same refused choice 5 times in a row: ")
    assert "b.png cannot be chosen" in err.decode()


def test_fzf_is_fed_only_what_may_be_chosen_and_a_file_gone_meanwhile_is_refused(home, run_in_pane):
    pane = start(run_in_pane, "fzf", home, *TEXT)
    screen = wait_tool(pane, home)
    assert "b.png" not in screen and "a.txt" in screen and "z\\nz.txt" in screen, screen
    (home / "a.txt").unlink()
    find(pane, "a.txt")
    choose(pane)
    screen = pane.wait_for("cannot be chosen")
    pane.keys("Enter")
    wait_gone(pane, "cannot be chosen")
    screen = wait_tool(pane, home)
    assert "a.txt" not in screen, screen
    find(pane, "e.txt")
    choose(pane)
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(home / "e.txt") + b"\n"), err


@pytest.mark.parametrize("tool", TOOLS)
def test_quitting_without_a_choice_cancels(tool, home, run_in_pane):
    pane = start(run_in_pane, tool, home, *TEXT)
    wait_tool(pane, home)
    quit_tool(pane)
    status, out, err = pane.finish()
    assert (status, out, err) == (1, b"", b"")


@pytest.mark.parametrize("tool", ["lf", "nnn", "ranger"])
def test_a_name_with_a_newline_is_refused_by_tools_that_write_lines(tool, home, run_in_pane):
    pane = start(run_in_pane, tool, home, *TEXT)
    wait_tool(pane, home)
    find(pane, "z\nz.txt")
    choose(pane)
    screen = pane.wait_for("holds a newline").replace("\n", "")
    assert f"{tool} writes one path a line, so it cannot pick a name that holds a newline" in screen, screen
    pane.keys("q")   # cancels there
    status, out, err = pane.finish()
    assert (status, out) == (1, b""), err


@pytest.mark.parametrize("tool", ["fzf", "vifm"])
def test_a_name_with_a_newline_is_chosen_byte_for_byte_where_the_tool_carries_it(tool, home, run_in_pane):
    pane = start(run_in_pane, tool, home, *TEXT, "-0")
    wait_tool(pane, home)
    find(pane, "z\nz.txt" if tool == "vifm" else "z\\nz")
    choose(pane)
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(home / "z\nz.txt") + b"\0"), err


@pytest.mark.parametrize("tool", TOOLS)
def test_a_missing_tool_fails_the_dialog_saying_so(tool, tmp_path, wharf_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    result = subprocess.run([wharf_path, "pick", "--presenter", tool, "--state-dir", ":memory:"], capture_output=True,
                            env={**os.environ, "PATH": str(empty), "HOME": str(tmp_path)}, stdin=subprocess.DEVNULL, timeout=30)
    assert result.returncode == 2
    assert f"wharf: {tool} is not installed (no {tool} on PATH; the Debian package is {tool})" in result.stderr.decode()


def test_without_a_terminal_the_dialog_fails_saying_so(tmp_path, wharf_path):
    """cron, a pipe, a daemon: no controlling terminal (a new session), or TERM=dumb."""
    base = {**os.environ, "HOME": str(tmp_path), "TERM": "xterm-256color"}
    result = subprocess.run([wharf_path, "pick", "--presenter", "fzf", "--state-dir", ":memory:"], capture_output=True,
                            env=base, stdin=subprocess.DEVNULL, start_new_session=True, timeout=30)
    assert result.returncode == 2
    assert result.stderr.decode() == ("wharf: --presenter fzf runs on the controlling terminal, and there is none to use "
                                      "(open /dev/tty: No such device or address)\n")
    result = subprocess.run([wharf_path, "pick", "--presenter", "lf", "--state-dir", ":memory:"], capture_output=True,
                            env={**base, "TERM": "dumb"}, stdin=subprocess.DEVNULL, start_new_session=True, timeout=30)
    assert (result.returncode, result.stderr.decode()) == (2, "wharf: --presenter lf needs a terminal it can draw on, but TERM is dumb\n")


def test_a_tool_that_fails_fails_the_dialog_with_the_end_of_what_it_said(home, tmp_path, run_in_pane):
    bin_dir = tmp_path / "fake"
    bin_dir.mkdir()
    fake = bin_dir / "lf"
    fake.write_text("#!/bin/sh\necho 'lf: starting' >&2\necho 'lf: cannot read its configuration' >&2\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    pane = start(run_in_pane, "lf", home, *TEXT, path=f"{bin_dir}:/usr/bin:/bin")
    status, out, err = pane.finish()
    assert status == 2
    assert err == b"wharf: lf exited with status 3: lf: starting / lf: cannot read its configuration\n"


# MARK: Saving: the tool chooses the folder, Wharf asks for the name


@pytest.fixture
def save_home(tmp_path) -> pathlib.Path:
    folder = tmp_path / "savehome"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "note.txt").write_text("old\n")
    source = tmp_path / "source.txt"
    source.write_text("new contents\n")
    return folder


def start_save(run_in_pane, tool, folder):
    pane = run_in_pane(folder, "save", "--presenter", tool, "--name", "note.txt", str(folder.parent / "source.txt"))
    pane.tool = tool
    return pane


def test_vifm_saves_into_the_folder_shown_under_the_suggested_name(save_home, run_in_pane):
    pane = start_save(run_in_pane, "vifm", save_home)
    pane.wait_for("sub/")
    pane.text(":q")
    pane.keys("Enter")
    assert "note.txt" in pane.wait_for("Save as (in ")
    pane.keys("Enter")
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(save_home / "note.txt") + b"\n"), err
    assert (save_home / "note.txt").read_text() == "new contents\n"


def test_nnn_saves_into_a_marked_folder_replacing_a_file_when_told_to(save_home, run_in_pane):
    pane = start_save(run_in_pane, "nnn", save_home)
    pane.wait_for("sub")
    pane.keys("Space")
    pane.keys("q")
    pane.wait_for("Save as (in ")
    pane.keys("Enter")
    pane.wait_for("already exists. Replace it? [y/N]")
    pane.keys("n")   # no: the name is asked again
    time.sleep(0.3)
    pane.keys("Enter")
    pane.wait_for("Replace it? [y/N] n")
    assert (save_home / "sub" / "note.txt").read_text() == "old\n"
    time.sleep(0.3)
    pane.keys("y")
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(save_home / "sub" / "note.txt") + b"\n"), err
    assert (save_home / "sub" / "note.txt").read_text() == "new contents\n"


def test_lf_saves_under_a_typed_name_after_wharf_asks_which_folder(save_home, run_in_pane):
    pane = start_save(run_in_pane, "lf", save_home)
    pane.wait_for("sub")
    pane.keys("q")   # lf writes the folder shown on every quit, so Wharf asks
    pane.wait_for("[Enter] choose it")
    pane.keys("Enter")
    pane.wait_for("Save as (in ")
    pane.keys("C-u")
    pane.text("renamed.txt")
    pane.keys("Enter")
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(save_home / "renamed.txt") + b"\n"), err
    assert (save_home / "renamed.txt").read_text() == "new contents\n"


def test_ranger_folder_picker_cancels_at_wharfs_question(save_home, run_in_pane):
    pane = run_in_pane(save_home, "pick", "--presenter", "ranger", "--directory")
    pane.wait_for("sub")
    pane.keys("q")
    pane.wait_for("[Enter] choose it")
    pane.keys("q")
    status, out, err = pane.finish()
    assert (status, out) == (1, b""), err


# MARK: The app ends the dialog


@pytest.mark.parametrize("how", ["cancel", "term"])
def test_the_app_ending_the_dialog_ends_the_tool_and_gives_the_terminal_back(how, home, tmp_path, run_in_pane, wharf_path):
    """A client of `wharf --presenter lf` (the stdio server, started in the pane) presents an
    importer, then, while lf is on the terminal, cancels it (`cancel`) or ends wharf (SIGTERM,
    as when the editor quits)."""
    go = tmp_path / "go"
    report = tmp_path / "report.json"
    client = pathlib.Path(__file__).with_name("cancelling_client.py")
    pane = run_in_pane(home, command=[sys.executable, str(client), wharf_path, str(go), str(report)])
    pane.wait_for("e.txt")
    go.write_text(how)
    status, out, err = pane.finish()
    assert status == 0, err
    result = json.loads(report.read_text())
    if how == "cancel":
        assert result["notification"]["method"] == "dialog/cancelled"
        assert result["notification"]["params"]["reason"] == "client"
    assert (result["lf_running_before"], result["lf_running"], result["foreground_back"]) == (True, False, True), result


def test_an_app_stopped_reading_the_terminal_while_the_tool_had_it_is_given_it_back_and_resumed(home, tmp_path, run_in_pane, wharf_path):
    report = tmp_path / "report.json"
    client = pathlib.Path(__file__).with_name("reading_client.py")
    pane = run_in_pane(home, command=[sys.executable, str(client), wharf_path, str(report)])
    pane.wait_for("e.txt")
    pane.keys("q")   # to lf: nothing chosen
    wait_gone(pane, "e.txt")
    time.sleep(0.3)
    pane.keys("x", "Enter")   # to the app, reading again (the terminal is as found: by lines)
    status, out, err = pane.finish()
    assert status == 0, err
    result = json.loads(report.read_text())
    assert (result["notification"]["params"]["reason"], result["key"]) == ("user", "x"), result


# MARK: Folders and several files


def test_fzf_opens_folders_and_chooses_the_one_shown_with_dot_slash(save_home, run_in_pane):
    pane = run_in_pane(save_home, "pick", "--presenter", "fzf", "--directory")
    pane.tool = "fzf"
    screen = pane.wait_for("sub/")
    assert "./" in screen and "note.txt" not in screen, screen
    pane.text("sub/")
    pane.keys("Enter")
    pane.wait_for(str(save_home / "sub"))
    pane.text("./")
    pane.keys("Enter")
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(save_home / "sub") + b"\n"), err


@pytest.mark.parametrize("tool", ["nnn", "vifm"])
def test_a_folder_is_chosen_in_the_tools_directory_mode(tool, save_home, run_in_pane):
    pane = run_in_pane(save_home, "pick", "--presenter", tool, "--directory")
    pane.wait_for("sub")
    if tool == "nnn":
        pane.keys("Space")   # marks sub, the first entry
        pane.keys("q")
        expected = save_home / "sub"
    else:
        pane.text(":q")     # the folder shown
        pane.keys("Enter")
        expected = save_home
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(expected) + b"\n"), err


def test_fzf_marks_several_with_tab_where_several_may_be_chosen(home, run_in_pane):
    pane = start(run_in_pane, "fzf", home, *TEXT, "--multiple")
    wait_tool(pane, home)
    pane.text("a.txt")
    time.sleep(0.3)
    pane.keys("Tab")
    pane.keys("C-u")
    pane.text("e.txt")
    time.sleep(0.3)
    pane.keys("Tab")
    pane.keys("Enter")
    status, out, err = pane.finish()
    assert status == 0, err
    assert sorted(out.split(b"\n")[:-1]) == [bytes(home / "a.txt"), bytes(home / "e.txt")]


def test_nnn_moves_into_a_marked_folder_asking_about_a_taken_name(save_home, run_in_pane):
    moving = save_home.parent / "moving"
    moving.mkdir()
    (moving / "note.txt").write_text("moved\n")
    pane = run_in_pane(save_home, "move", "--presenter", "nnn", str(moving / "note.txt"))
    pane.tool = "nnn"
    pane.wait_for("sub")
    pane.keys("Space")   # marks sub, the first entry
    pane.keys("q")
    pane.wait_for("[r] replace   [k] keep both")
    assert (moving / "note.txt").read_text() == "moved\n"
    time.sleep(0.3)
    pane.keys("r")
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(save_home / "sub" / "note.txt") + b"\n"), err
    assert (save_home / "sub" / "note.txt").read_text() == "moved\n"
    assert not (moving / "note.txt").exists()


# MARK: The dialog's title and message, where each tool can show them

# Quotes of every kind, lf's shell prefix after a closing quote, vifm's command separator,
# ranger's and lf's `%` expansions, a backslash and a newline: shown as written (escaped as
# Wharf escapes text for a terminal: `\\`, `\n`), never run, and the tool still chooses.
HOSTILE_TITLE = "T\"; $touch pwned; \" 'q' %d 5% \\ | !touch pwned\nend"
SHOWN_TITLE = HOSTILE_TITLE.replace("\\", "\\\\").replace("\n", "\\n")
HINTS = {"fzf": "Esc cancels", "lf": "q cancels", "ranger": "q cancels", "vifm": ":cq cancels"}


@pytest.mark.parametrize("tool", ["fzf", "lf", "ranger", "vifm"])
def test_the_title_is_shown_as_written_and_cannot_run_anything(tool, home, run_in_pane):
    pane = start(run_in_pane, tool, home, *TEXT, "--title", HOSTILE_TITLE)
    pane.wait_for(SHOWN_TITLE)
    wait_tool(pane, home)
    find(pane, "e.txt")
    choose(pane)
    status, out, err = pane.finish()
    assert (status, out) == (0, bytes(home / "e.txt") + b"\n"), err
    assert not (home / "pwned").exists() and not any(home.glob("*pwned*"))


@pytest.mark.parametrize("tool", ["fzf", "lf", "ranger", "vifm"])
def test_without_a_title_the_tool_says_what_the_dialog_does(tool, home, run_in_pane):
    pane = start(run_in_pane, tool, home, *TEXT)
    screen = pane.wait_for(HINTS[tool])   # the keys the tool's chooser mode needs
    assert any(line.strip().startswith("Open") for line in screen.split("\n")), screen
    quit_tool(pane)
    assert pane.finish()[0] == 1


@pytest.mark.parametrize("tool", ["fzf", "lf", "ranger", "vifm"])
def test_an_apps_title_and_message_are_shown(tool, home, tmp_path, run_in_pane, wharf_path):
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps({"title": "Import a 100% \"plain\" note", "message": "Only text; 'q' | %f stays\tliteral"}))
    report = tmp_path / "report.json"
    client = pathlib.Path(__file__).with_name("titled_client.py")
    pane = run_in_pane(home, command=[sys.executable, str(client), wharf_path, tool, str(texts), str(report)])
    pane.tool = tool
    screen = pane.wait_for("Only text; 'q' | %f stays\\tliteral")
    assert "Import a 100% \"plain\" note" in screen, screen
    wait_tool(pane, home)
    find(pane, "a.txt")
    choose(pane)
    status, out, err = pane.finish()
    assert status == 0, err
    ended = json.loads(report.read_text())
    assert ended["method"] == "dialog/completed", ended
    assert ended["params"]["urls"] == [(home / "a.txt").as_uri()], ended
