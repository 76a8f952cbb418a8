"""A person at a terminal, played by tmux, for every suite that drives one (Tests/terminal,
Tests/filemanagers, Tests/ssh): a tmux server of the suite's own (its own socket, no
configuration read), a session in it running one shell script, keys sent to it (`send-keys`)
and its screen read back (`capture-pane`).

What a script records around its command (the terminal's modes, the exit status, the output)
is each suite's own; this is only the tmux driving they share. A suite imports it after putting
this folder on `sys.path` (its conftest.py or harness does)."""
import os
import pathlib
import subprocess
import time
from typing import Callable


class Server:
    """A private tmux server on the socket `name` (`tmux -L`); it starts with its first session."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *arguments: str, check: bool = True) -> str:
        result = subprocess.run(["tmux", "-L", self.name, "-f", "/dev/null", *arguments], capture_output=True, check=check)
        return result.stdout.decode("utf-8", "replace")

    def kill(self) -> None:
        """Ends the server and everything in it, and removes its socket."""
        self("kill-server", check=False)
        # The server leaves its socket behind when its last session is killed first.
        socket = pathlib.Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / self.name
        socket.unlink(missing_ok=True)


class Pane:
    """A session `name` of `server`, `columns` by `rows`, running `script` with `/bin/sh -c`
    under `env ENVIRONMENT`; the script should end in a long sleep, so that the pane (and its
    last screen) stays after the command in it ends."""

    def __init__(self, server: Server, name: str, script: str, columns: int, rows: int,
                 environment: dict[str, str] | None = None):
        self.server, self.name = server, name
        assignments = [f"{key}={value}" for key, value in (environment or {}).items()]
        server("new-session", "-d", "-s", name, "-x", str(columns), "-y", str(rows), "env", *assignments, "/bin/sh", "-c", script)

    def screen(self, *options: str) -> str:
        """What the pane shows (`capture-pane -p` with `options`: `-J` joins wrapped lines, `-e`
        keeps the attributes)."""
        return self.server("capture-pane", "-p", *options, "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.server("send-keys", "-t", self.name, *keys)

    def text(self, text: str) -> None:
        """Types `text` as it is (no key names)."""
        self.server("send-keys", "-t", self.name, "-l", text)

    def wait_for(self, found: Callable[[str], bool], what: str, timeout: float, ended: Callable[[], bool] = lambda: False,
                 details: Callable[[], str] = lambda: "", options: tuple[str, ...] = ()) -> str:
        """The screen once `found(screen)`; fails, showing the screen and `details()`, after
        `timeout` seconds or as soon as `ended()` says the command is over without it."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen(*options)
            if found(screen):
                return screen
            if time.monotonic() > deadline or ended():
                raise AssertionError(f"waited {timeout}s for {what}; the screen:\n{screen}\n{details()}")
            time.sleep(0.05)

    def close(self) -> None:
        self.server("kill-session", "-t", self.name, check=False)
