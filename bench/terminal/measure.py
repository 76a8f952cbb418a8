"""Times the terminal picker through a pseudo-terminal (see run.sh)."""
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

WHARF, RUNS = sys.argv[1], int(sys.argv[2])


def folder(root: Path, count: int) -> Path:
    path = root / f"entries-{count}"
    path.mkdir()
    fd = os.open(path, os.O_RDONLY)
    try:
        for index in range(count):
            os.close(os.open(f"f{index:06d}.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    return path


class Picker:
    """`wharf pick` on the slave side of a new pseudo-terminal of 40 × 120, its controlling terminal."""

    def __init__(self, directory: Path):
        self.started = time.monotonic()
        self.pid, self.master = pty.fork()
        if self.pid == 0:
            os.chdir(directory)
            os.execve(WHARF, [WHARF, "pick", "--presenter", "terminal", "--state-dir", ":memory:", "--type", "public.plain-text"],
                      {"TERM": "xterm", "LANG": "C.UTF-8", "HOME": str(directory), "PATH": "/usr/bin:/bin"})
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.seen = b""

    def wait_for(self, marker: bytes, timeout: float = 60) -> float:
        """Reads until `marker` has been drawn; the time it took, from now."""
        start = time.monotonic()
        self.seen = b""
        while marker not in self.seen:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                raise SystemExit(f"no {marker!r} within {timeout}s; last output {self.seen[-300:]!r}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                self.seen = self.seen[-4096:] + os.read(self.master, 1 << 16)
        return time.monotonic() - start

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().split("\n"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def close(self):
        os.write(self.master, b"\x1b")
        try:
            self.wait_for(b"\x1b[?1049l", timeout=5)
        except SystemExit:
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.master)


def first_frame(directory: Path, first_name: bytes) -> tuple[float, "Picker"]:
    picker = Picker(directory)
    picker.wait_for(first_name)
    return time.monotonic() - picker.started, picker


def keystrokes(picker: Picker, total: int) -> list[float]:
    """Types filters into the picker over `total` entries, one key at a time, each timed to the
    frame that shows its result (the status line's count)."""
    times = []
    os.write(picker.master, b"/")
    picker.wait_for(b"/   (")
    for query in (b"f09", b"f0999", b"12", b"f00001", b"7", b"f09999"):
        typed = b""
        for byte in query:
            typed += bytes([byte])
            os.write(picker.master, bytes([byte]))
            times.append(picker.wait_for(b"/" + typed + b"   ("))
        for _ in query:
            typed = typed[:-1]
            os.write(picker.master, b"\x7f")
            times.append(picker.wait_for(b"/" + typed + b"   ("))
    return times


def timed(command: str) -> float:
    start = time.monotonic()
    subprocess.run(["sh", "-c", command], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.monotonic() - start


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms ({min(values) * 1000:.1f}–{max(values) * 1000:.1f})"


def main():
    with tempfile.TemporaryDirectory(prefix="wharf-bench-terminal-") as work:
        root = Path(work)
        small, large = folder(root, 1_000), folder(root, 100_000)
        small_frames, large_frames, listed, keys, rss = [], [], [], [], []
        fzf_small, fzf_large, ls_small, ls_large = [], [], [], []
        for _ in range(RUNS):
            elapsed, picker = first_frame(small, b"f000000.txt")
            small_frames.append(elapsed)
            picker.close()
            elapsed, picker = first_frame(large, b"f000000.txt")
            large_frames.append(elapsed)
            picker.wait_for(b"100000 entries")
            listed.append(time.monotonic() - picker.started)
            rss.append(picker.rss_mib())
            keys += keystrokes(picker, 100_000)
            picker.close()
            fzf_small.append(timed(f"cd {small} && find . | fzf --filter f0999"))
            fzf_large.append(timed(f"cd {large} && find . | fzf --filter f0999"))
            ls_small.append(timed(f"ls {small}"))
            ls_large.append(timed(f"ls {large}"))
        p95 = statistics.quantiles(keys, n=20)[18] if len(keys) >= 20 else max(keys)
        print(f"Medians over {RUNS} runs (min–max); the picker through a pseudo-terminal of 40 × 120, TERM=xterm.")
        print()
        print(f"first frame, 1,000 entries: {ms(small_frames)} (target < 50)")
        print(f"first frame, 100,000 entries: {ms(large_frames)} (target < 300)")
        print(f"filter keystroke to redraw over 100,000, p95: {p95 * 1000:.1f} ms, median {statistics.median(keys) * 1000:.1f} ms over {len(keys)} keys (target < 16)")
        print(f"all 100,000 listed (the count on the status line): {ms(listed)}")
        print(f"resident memory with 100,000 entries open: {statistics.median(rss):.1f} MiB ({min(rss):.1f}–{max(rss):.1f})")
        print()
        print("| peer, same folders | 1,000 entries | 100,000 entries |")
        print("| --- | --- | --- |")
        print(f"| `find . \\| fzf --filter f0999` (to its end) | {ms(fzf_small)} | {ms(fzf_large)} |")
        print(f"| `ls` (to its end) | {ms(ls_small)} | {ms(ls_large)} |")
        print(f"| wharf pick, start to first frame | {ms(small_frames)} | {ms(large_frames)} |")


main()
