"""Driving `wharf pick` and `wharf save` with a terminal file manager as a person would: in a
tmux pane of a private tmux server, with real keys (send-keys), reading the screen
(capture-pane), the exit status, what was printed, and the terminal's modes (`stty -g`)
before and after."""
import os
import pathlib
import shlex
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "support"))
import built  # noqa: E402
import tmuxrig  # noqa: E402

SERVER = tmuxrig.Server(f"wharf-filemanagers-{os.getpid()}")


@pytest.fixture(scope="session")
def wharf_path() -> str:
    return built.wharf()


@pytest.fixture(scope="session", autouse=True)
def tmux_server():
    yield
    SERVER.kill()


class Pane(tmuxrig.Pane):
    """One command run in a tmux pane; the pane stays after the command ends."""

    def __init__(self, name: str, command: list[str], cwd: pathlib.Path, environment: dict[str, str], scratch: pathlib.Path):
        self.scratch = scratch
        out, err, rc = scratch / "out", scratch / "err", scratch / "rc"
        before, after = scratch / "stty-before", scratch / "stty-after"
        assignments = [f"{key}={value}" for key, value in environment.items()]
        for file in (out, err, rc, before, after):
            file.unlink(missing_ok=True)
        # With env on the command line: tmux gives a new session's shell the client's PATH
        # whatever `new-session -e` says.
        script = (
            f"cd {shlex.quote(str(cwd))} && stty -g > {before} && "
            f"{shlex.join(['env', *assignments, *command])} > {out} 2> {err}; echo $? > {rc}; stty -g > {after}; exec sleep 600"
        )
        super().__init__(SERVER, name, script, columns=110, rows=32)

    def screen(self, *options: str) -> str:
        return super().screen("-J", *options)

    def wait_for(self, text: str, timeout: float = 20) -> str:
        screen = super().wait_for(
            lambda screen: text in screen, repr(text), timeout,
            ended=lambda: (self.scratch / "rc").exists() and (self.scratch / "stty-after").exists(),
            details=lambda: f"stderr: {self.read('err')!r}")
        # The tool has drawn; give it a moment to start reading keys.
        time.sleep(0.3)
        return screen

    def read(self, name: str) -> bytes:
        path = self.scratch / name
        return path.read_bytes() if path.exists() else b""

    def finish(self, timeout: float = 20) -> tuple[int, bytes, bytes]:
        """Waits for the command to end: its exit status, standard output and standard error;
        and checks that the terminal was given back as it was found."""
        deadline = time.monotonic() + timeout
        while not (self.scratch / "stty-after").exists():
            if time.monotonic() > deadline:
                raise AssertionError(f"wharf did not end; the screen:\n{self.screen()}")
            time.sleep(0.05)
        time.sleep(0.05)
        before, after = self.read("stty-before").strip(), self.read("stty-after").strip()
        assert before and before == after, f"the terminal was not given back as found: {before!r} then {after!r}"
        self.close()
        return int(self.read("rc")), self.read("out"), self.read("err")


@pytest.fixture
def run_in_pane(tmp_path, wharf_path, request):
    """Starts `wharf ARGUMENTS...` (or `command`) in a pane with HOME (where the dialog opens)
    set to `home`."""
    panes: list[Pane] = []

    def start(home: pathlib.Path, *arguments: str, path: str | None = None, command: list[str] | None = None) -> Pane:
        scratch = tmp_path / f"pane{len(panes)}"
        scratch.mkdir()
        config = tmp_path / "config"
        config.mkdir(exist_ok=True)
        environment = {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(config),   # the person's own configuration stays out of it
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "TERM": "screen-256color",   # what tmux draws for: its keys (Home) read as sent
            "LANG": "C.UTF-8",
            "PATH": path or os.environ.get("PATH", "/usr/bin:/bin"),
            "FZF_DEFAULT_OPTS": "",
            "NNN_OPTS": "",
            "DISPLAY": "",
            "WAYLAND_DISPLAY": "",
        }
        name = f"{request.node.name[:40]}-{len(panes)}".replace(".", "_").replace(":", "_")
        pane = Pane(name, command or [wharf_path, *arguments, "--state-dir", ":memory:"], home, environment, scratch)
        panes.append(pane)
        return pane

    yield start
    for pane in panes:
        pane.close()
