"""`wharf pick` and `wharf save` over a real ssh connection, with nothing but a terminal.

A private sshd (conftest.py) on 127.0.0.1; an `ssh -t` client in a tmux pane, as a person at a
local terminal would type it; on the remote side the command runs with no DISPLAY, no
WAYLAND_DISPLAY and no D-Bus session bus, so no desktop dialog can be reached and `wharf` must
fall back to the terminal ssh gave it. The remote terminal's modes (`stty -g`) are recorded
before and after `wharf`, the exit status comes back as ssh's own, and what `wharf` printed is
kept byte for byte. Without `-t` there is no terminal at all, and the message must say what to
do."""
import os
import pathlib
import shlex
import subprocess

import pytest

NO_DESKTOP = "env -u DISPLAY -u WAYLAND_DISPLAY -u DBUS_SESSION_BUS_ADDRESS"


@pytest.fixture
def folder(tmp_path) -> pathlib.Path:
    root = tmp_path / "files"
    root.mkdir()
    (root / "alpha.txt").write_text("alpha\n")
    (root / "beta.txt").write_text("beta\n")
    (root / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    return root


class Remote:
    """A command run on the far side in `folder`: its output to `out` (then shown), the remote
    terminal's modes to `before` and `after`, its exit status passed on as ssh's."""

    def __init__(self, scratch: pathlib.Path, folder: pathlib.Path, command: list[str], stdin: pathlib.Path | None = None):
        self.out, self.before, self.after = scratch / "remote.out", scratch / "stty.before", scratch / "stty.after"
        q = lambda path: shlex.quote(str(path))
        feed = f" < {q(stdin)}" if stdin else ""
        self.script = (f"cd {q(folder)} && stty -g > {q(self.before)} && {NO_DESKTOP} {shlex.join(command)}{feed} > {q(self.out)}; "
                       f"status=$?; stty -g > {q(self.after)}; cat {q(self.out)}; exit $status")

    def terminal_given_back(self) -> bool:
        before, after = self.before.read_text().strip(), self.after.read_text().strip()
        assert before, "stty -g recorded nothing on the remote terminal"
        return before == after


def test_pick_over_ssh_draws_on_the_remote_terminal_and_prints_the_path(sshd, pane, folder, tmp_path, wharf_path):
    remote = Remote(tmp_path, folder, [wharf_path, "pick", "--type", "public.plain-text", "--state-dir", ":memory:"])
    client = pane(sshd.ssh("-t") + [remote.script])
    screen = client.wait_for("q cancel")
    assert "Plain text" in screen and "alpha.txt" in screen, screen
    client.keys("/")
    client.text("beta")
    client.wait_for("/beta")
    client.keys("Enter")
    client.keys("Enter")
    assert client.wait_exit() == 0, client.screen()
    assert remote.out.read_bytes() == os.fsencode(folder / "beta.txt") + b"\n"
    assert remote.terminal_given_back()
    screen = client.screen()
    assert str(folder / "beta.txt") in screen and "q cancel" not in screen, screen


def test_save_over_ssh_writes_the_file_where_the_person_says(sshd, pane, folder, tmp_path, wharf_path):
    source = tmp_path / "source"
    source.write_text("written over ssh\n")
    remote = Remote(tmp_path, folder, [wharf_path, "save", "--name", "report.txt", "--state-dir", ":memory:"], stdin=source)
    client = pane(sshd.ssh("-t") + [remote.script])
    client.wait_for("» Save here as report.txt")
    client.keys("Enter")
    client.wait_for("Name: report.txt")
    client.keys("C-u")
    client.text("from afar.txt")
    client.wait_for("Name: from afar.txt")
    client.keys("Enter")
    assert client.wait_exit() == 0, client.screen()
    assert remote.out.read_bytes() == os.fsencode(folder / "from afar.txt") + b"\n"
    assert (folder / "from afar.txt").read_text() == "written over ssh\n"
    assert not (folder / "report.txt").exists()
    assert remote.terminal_given_back()


def test_escape_over_ssh_cancels_with_1_and_gives_the_terminal_back(sshd, pane, folder, tmp_path, wharf_path):
    remote = Remote(tmp_path, folder, [wharf_path, "pick", "--type", "public.plain-text", "--state-dir", ":memory:"])
    client = pane(sshd.ssh("-t") + [remote.script])
    client.wait_for("q cancel")
    client.keys("Escape")
    assert client.wait_exit() == 1, client.screen()
    assert remote.out.read_bytes() == b""
    assert remote.terminal_given_back()
    assert "q cancel" not in client.screen()


def test_a_file_manager_named_runs_on_the_remote_terminal(sshd, pane, folder, tmp_path, wharf_path):
    """`--presenter fzf` over ssh: the tool is given the terminal ssh allocated, in its own
    process group in the foreground, and the terminal is given back."""
    remote = Remote(tmp_path, folder, [wharf_path, "pick", "--presenter", "fzf", "--type", "public.plain-text",
                                       "--title", "Open a note", "--state-dir", ":memory:"])
    client = pane(sshd.ssh("-t") + [remote.script])
    screen = client.wait_for("Esc cancels")
    assert "Open a note" in screen and "alpha.txt" in screen and "picture.png" not in screen, screen
    client.text("alpha")
    client.wait_for("> alpha")
    client.keys("Enter")
    assert client.wait_exit() == 0, client.screen()
    assert remote.out.read_bytes() == os.fsencode(folder / "alpha.txt") + b"\n"
    assert remote.terminal_given_back()


def test_without_a_terminal_ssh_host_wharf_pick_says_to_use_ssh_t(sshd, folder, wharf_path):
    """`ssh host wharf pick`: the command gets no terminal (ssh allocates one only with -t) and
    no desktop, so there is nobody to ask; the message is for the person at the shell."""
    command = f"cd {shlex.quote(str(folder))} && {NO_DESKTOP} {shlex.quote(wharf_path)} pick --type public.plain-text --state-dir :memory:"
    run = subprocess.run(sshd.ssh() + [command], stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    message = run.stderr.decode()
    assert run.returncode == 2, message
    assert run.stdout == b""
    assert message.startswith("wharf: no dialog can be shown here."), message
    assert "terminal: no controlling terminal" in message, message
    assert "`ssh -t`" in message
    assert "zenity" in message and "--presenter script:FILE" in message
    assert "capabilities" not in message and "initialize" not in message
