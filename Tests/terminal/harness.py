"""A person at a terminal, played by tmux: a pane runs a command, keys are sent to it
(`send-keys`), and what it shows is read back (`capture-pane`).

Each command runs inside a small shell script that records the terminal's mode (`stty -g`)
before and after it, its exit status and its output, so a test can check that the terminal was
given back exactly as it was found, however the command ended.
"""
import os
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import built  # noqa: E402
import tmuxrig  # noqa: E402

WHARF = built.wharf()


class Pane:
    """One tmux server (a socket of its own) with one window running one command."""

    def __init__(self, work: Path, columns: int = 100, rows: int = 30):
        self.work = work
        self.server: tmuxrig.Server | None = None
        self.session: tmuxrig.Pane | None = None
        self.started = 0
        self.columns, self.rows = columns, rows
        self.status = work / "status"
        self.before = work / "stty.before"
        self.after = work / "stty.after"
        self.output = work / "stdout"
        self.errors = work / "stderr"
        self.pid = work / "pid"

    def tmux(self, *arguments: str, check: bool = True) -> str:
        assert self.server, "start a command first"
        return self.server(*arguments, check=check)

    def start(self, command: list[str], cwd: Path, stdin: str | None = None, environment: dict[str, str] | None = None):
        """Runs `command` in the pane, in `cwd`, its output to files; `stdin` a file to read."""
        # A tmux server of its own each time: one being killed may still hold the last socket.
        self.started += 1
        self.server = tmuxrig.Server(f"wharf-terminal-test-{os.getpid()}-{id(self)}-{self.started}")
        for path in (self.status, self.before, self.after, self.output, self.errors, self.pid):
            path.unlink(missing_ok=True)
        exports = "".join(f"export {name}={shlex.quote(value)}; " for name, value in (environment or {}).items())
        inner = f"echo $$ > {shlex.quote(str(self.pid))}; exec {shlex.join(command)}"
        script = (
            f"cd {shlex.quote(str(cwd))}; {exports}"
            f"stty -g > {shlex.quote(str(self.before))}; "
            f"sh -c {shlex.quote(inner)} < {shlex.quote(stdin or '/dev/null')} "
            f"> {shlex.quote(str(self.output))} 2> {shlex.quote(str(self.errors))}; "
            f"echo $? > {shlex.quote(str(self.status))}.tmp; "
            f"stty -g > {shlex.quote(str(self.after))}; mv {shlex.quote(str(self.status))}.tmp {shlex.quote(str(self.status))}; "
            "exec sleep 100000"
        )
        self.session = tmuxrig.Pane(self.server, "main", script, self.columns, self.rows,
                                    environment={"TERM": "screen", "LANG": "C.UTF-8"})

    def kill(self):
        if self.server:
            self.server.kill()

    def keys(self, *keys: str):
        assert self.session, "start a command first"
        self.session.keys(*keys)

    def type(self, text: str):
        assert self.session, "start a command first"
        self.session.text(text)

    def screen(self, attributes: bool = False) -> str:
        assert self.session, "start a command first"
        return self.session.screen(*(["-e"] if attributes else []))

    def lines(self) -> list[str]:
        return self.screen().split("\n")

    def wait_for(self, predicate, what: str, timeout: float = 15.0) -> str:
        assert self.session, "start a command first"
        return self.session.wait_for(predicate, what, timeout, details=lambda: f"stderr: {self.read_errors()}")

    def read_errors(self) -> str:
        return self.errors.read_text(errors="replace") if self.errors.exists() else ""

    def wait_text(self, text: str, timeout: float = 15.0) -> str:
        return self.wait_for(lambda screen: text in screen, repr(text), timeout)

    def wait_gone(self, text: str, timeout: float = 15.0) -> str:
        return self.wait_for(lambda screen: text not in screen, f"{text!r} to go", timeout)

    def wait_exit(self, timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while not self.status.exists():
            if time.monotonic() > deadline:
                raise AssertionError(f"the command did not end in {timeout}s; the screen:\n{self.screen()}")
            time.sleep(0.05)
        return int(self.status.read_text().strip())

    def process_id(self, timeout: float = 10.0) -> int:
        deadline = time.monotonic() + timeout
        while not (self.pid.exists() and self.pid.read_text().strip()):
            if time.monotonic() > deadline:
                raise AssertionError("the command never started")
            time.sleep(0.02)
        return int(self.pid.read_text().strip())

    def terminal_given_back(self) -> bool:
        """The mode after the command is the mode before it, byte for byte of `stty -g`."""
        before, after = self.before.read_text().strip(), self.after.read_text().strip()
        assert before, "stty -g recorded nothing before"
        return before == after
