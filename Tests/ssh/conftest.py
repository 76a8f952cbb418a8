"""A private OpenSSH server for the ssh suite, and panes of a private tmux server to drive an
`ssh` client in.

The server is `/usr/sbin/sshd -D` with a configuration, host key and authorized client key all
in a temporary folder, listening on 127.0.0.1 only, on a port that was free: nothing of the
system's own `/etc/ssh` is read or written, and no running sshd is touched. It lets in the user
running the tests (root in CI) with that key only, and is ended when the session ends."""
import os
import pathlib
import pwd
import shlex
import socket
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "support"))
import built  # noqa: E402
import tmuxrig  # noqa: E402

SERVER = tmuxrig.Server(f"wharf-ssh-test-{os.getpid()}")
SSHD = "/usr/sbin/sshd"   # sshd re-executes itself, so it must be started by its absolute path


@pytest.fixture(scope="session")
def wharf_path() -> str:
    return built.wharf()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, folder: pathlib.Path, port: int, key: pathlib.Path, user: str):
        self.folder, self.port, self.key, self.user = folder, port, key, user

    def ssh(self, *options: str) -> list[str]:
        """The client's command line up to the remote command: no system or user ssh
        configuration read (-F /dev/null), no known_hosts written, no agent, no password asked."""
        return ["ssh", "-F", "/dev/null", "-p", str(self.port), "-i", str(self.key),
                "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10", *options, f"{self.user}@127.0.0.1"]


@pytest.fixture(scope="session")
def sshd(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sshd")
    os.chmod(folder, 0o700)
    host_key, client_key = folder / "host_key", folder / "client_key"
    for key in (host_key, client_key):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "wharf-ssh-test", "-f", str(key)], check=True)
    authorized = folder / "authorized_keys"
    authorized.write_bytes((folder / "client_key.pub").read_bytes())
    user = pwd.getpwuid(os.getuid()).pw_name
    if os.geteuid() == 0 and not os.path.isdir("/run/sshd"):
        # sshd run by root insists on its (empty) privilege separation folder, which a system
        # that never started its own sshd has not made yet.
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    port = free_port()
    config = folder / "sshd_config"
    config.write_text("\n".join([
        "ListenAddress 127.0.0.1",
        f"Port {port}",
        f"HostKey {host_key}",
        f"AuthorizedKeysFile {authorized}",
        f"PidFile {folder / 'sshd.pid'}",
        "StrictModes no",
        "UsePAM no",
        "PermitRootLogin prohibit-password",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "AuthenticationMethods publickey",
        "X11Forwarding no",
        "AllowAgentForwarding no",
        "AllowTcpForwarding no",
        "PrintMotd no",
        "PrintLastLog no",
        "LogLevel ERROR",
        "",
    ]))
    log = open(folder / "sshd.log", "wb")
    server = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config), "-p", str(port)], stdin=subprocess.DEVNULL,
                              stdout=log, stderr=log, start_new_session=True)
    try:
        deadline = time.monotonic() + 15
        while True:
            assert server.poll() is None, f"sshd ended at once: {(folder / 'sshd.log').read_text(errors='replace')}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "sshd never listened"
                time.sleep(0.05)
        yield Server(folder, port, client_key, user)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


@pytest.fixture(scope="session", autouse=True)
def tmux_server():
    yield
    SERVER.kill()


class Pane(tmuxrig.Pane):
    """A local terminal (a tmux pane) running an `ssh` client; its exit status is written to
    `rc` when it ends, and the pane stays so its last screen can be read."""

    def __init__(self, name: str, command: list[str], scratch: pathlib.Path):
        self.rc = scratch / "local.rc"
        script = f"{shlex.join(command)}; echo $? > {shlex.quote(str(self.rc))}; exec sleep 600"
        super().__init__(SERVER, name, script, columns=100, rows=30, environment={"TERM": "screen"})

    def wait_for(self, text: str, timeout: float = 20) -> str:
        return super().wait_for(lambda screen: text in screen, repr(text), timeout, ended=self.rc.exists)

    def wait_exit(self, timeout: float = 20) -> int:
        deadline = time.monotonic() + timeout
        while not (self.rc.exists() and self.rc.read_text().strip()):
            if time.monotonic() > deadline:
                raise AssertionError(f"ssh did not end; the screen:\n{self.screen()}")
            time.sleep(0.05)
        return int(self.rc.read_text())


@pytest.fixture
def pane(tmp_path, request):
    panes: list[Pane] = []

    def start(command: list[str]) -> Pane:
        name = f"{request.node.name[:40]}-{len(panes)}".replace(".", "_").replace(":", "_")
        started = Pane(name, command, tmp_path)
        panes.append(started)
        return started

    yield start
    for started in panes:
        started.close()
