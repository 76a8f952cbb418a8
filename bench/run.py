#!/usr/bin/env python3
"""Runs Wharf's benchmarks against its peers and rewrites bench/README.md.

`make bench` builds everything first (bench/bench.sh) and then runs this. Every figure comes
from the C load driver (bench/driver/wharf-load.c) speaking LSP framing over real pipes to a
freshly spawned server; this script only orchestrates and writes the report, so its own speed
never enters a number.

Noise control: each repetition runs every peer once, one after the other, so that whatever
else the machine is doing weighs on all of them alike; ratios are computed within one
repetition (Wharf's figure over the floor's figure from the same repetition) and then the
median ratio is reported with its spread. Instruction counts from callgrind complement the
times: they do not move with the machine's load.

Usage: bench/run.py --wharf PATH --driver PATH --c-peer PATH --python PATH [--repeat N]
                    [--output bench/README.md] [--quick]
Only the standard library is used.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


# MARK: - Peers and workloads


@dataclass
class Peer:
    key: str
    title: str
    command: list[str]
    # Per-trial workload sizes: slow peers get smaller counts (the driver reports rates and
    # percentiles, which do not depend on the count once it is large enough).
    roundtrips: int
    warmup: int
    pipelined: int
    spawns: int

    @property
    def shell(self) -> str:
        return " ".join(shlex.quote(part) for part in self.command)


@dataclass
class Samples:
    """One list of per-repetition values for each figure."""

    values: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def add(self, name: str, value: float) -> None:
        self.values.setdefault(name, []).append(value)

    def get(self, name: str) -> list[float]:
        return self.values.get(name, [])


def run_driver(driver: Path, mode: str, peer: Peer, *options: str, prefix: list[str] | None = None,
               pin: list[str] | None = None, timeout: float = 600) -> dict:
    """One trial: the driver's JSON line as a dict. Raises RuntimeError with the driver's own
    message when the trial fails (a wrong reply, a crash, a timeout). `prefix` goes before the
    server's command, `pin` before the driver's (and so the server's, which inherits it)."""
    command = [*(pin or []), str(driver), mode, "-q", *options, "--", *(prefix or []), *peer.command]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{mode} on {peer.title}: no result within {timeout:.0f} s")
    if completed.returncode != 0:
        message = (completed.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeError(f"{mode} on {peer.title} failed: {message}")
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"{mode} on {peer.title}: the driver printed no result")
    result = json.loads(lines[-1])
    if result.get("exit") not in (0, None):
        raise RuntimeError(f"{mode} on {peer.title}: the server exited with status {result['exit']} after shutdown and exit")
    return result


def run_driver_alone(driver: Path, mode: str) -> dict:
    """The driver's JSON line for a mode that measures the host, with no server."""
    completed = subprocess.run([str(driver), mode], capture_output=True, text=True, timeout=60)
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if completed.returncode != 0 or not lines:
        raise RuntimeError(f"{mode}: the driver failed: {completed.stderr.strip()}")
    return json.loads(lines[-1])


def measure_once(driver: Path, peer: Peer, samples: Samples) -> None:
    """One repetition of every timed figure for one peer."""

    def attempt(label: str, body) -> None:
        try:
            body()
        except RuntimeError as error:
            samples.errors.append(str(error))
            print(f"  ! {error}", file=sys.stderr)

    def roundtrip() -> None:
        result = run_driver(driver, "roundtrip", peer, "-n", str(peer.roundtrips), "-w", str(peer.warmup))
        samples.add("rt_median_us", result["median_us"])
        samples.add("rt_p99_us", result["p99_us"])

    def throughput() -> None:
        result = run_driver(driver, "throughput", peer, "-n", str(peer.pipelined))
        samples.add("pipelined_per_s", result["per_second"])

    def startup() -> None:
        times = [run_driver(driver, "startup", peer)["initialize_ms"] for _ in range(peer.spawns)]
        samples.add("initialize_ms", statistics.median(times))

    def rss() -> None:
        result = run_driver(driver, "rss", peer)
        samples.add("vmrss_kib", result["vmrss_kib"])
        samples.add("vmhwm_kib", result["vmhwm_kib"])
        samples.add("threads", result["threads"])

    attempt("roundtrip", roundtrip)
    attempt("throughput", throughput)
    attempt("startup", startup)
    attempt("rss", rss)


# MARK: - Dialogs (Wharf only: the peers have none)


IMPORTER_PARAMS = '{"allowedContentTypes":["public.item"]}'
# The types editors ask for: a text file picked for public.plain-text, a PNG for public.image.
TYPED_IMPORTERS = {"text": ("public.plain-text", "picked.txt"), "image": ("public.image", "picked.png")}


def dialog_workloads(work: Path, cycles: int, daemon_clients: int, daemon_cycles: int) -> dict[str, tuple[str, list[str], list[str]]]:
    """name → (driver mode, driver options, server arguments). Scripts answer every dialog, or
    the driver does (frontend-cycles; the daemon's presenter connection)."""
    pick = work / "picked.txt"
    pick.write_text("picked\n")
    (work / "picked.png").write_bytes(bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"))
    importer_script = work / "importer-script.json"
    importer_script.write_text(json.dumps([{"choose": [str(pick)]}] * (cycles + 100)))
    typed_scripts = {}
    for key, (_, name) in TYPED_IMPORTERS.items():
        typed_scripts[key] = work / f"importer-{key}.json"
        typed_scripts[key].write_text(json.dumps([{"choose": [str(work / name)]}] * (cycles + 100)))
    exported = work / "exported.txt"
    exporter_script = work / "exporter-script.json"
    exporter_script.write_text(json.dumps([{"save": {"path": str(exported), "overwrite": True}}] * (cycles // 10 + 100)))
    exporter_params = json.dumps({"documents": [{"filename": "note", "writableContentTypes": ["public.plain-text"],
                                                 "contents": {"text": "hello\n"}}], "contentType": "public.plain-text"})
    state = lambda name: str(work / f"state-{name}")  # noqa: E731
    url = "file://" + str(pick)
    socket = lambda name: str(work / f"{name}.sock")  # noqa: E731
    importer = ["-m", "presentImporter", "-p", IMPORTER_PARAMS]
    typed = {}
    for key, (identifier, _) in TYPED_IMPORTERS.items():
        params = json.dumps({"allowedContentTypes": [identifier]})
        for window in (1, 16):
            typed[f"importer_{key}_w{window}"] = (
                "cycles", ["-n", str(cycles), "-W", str(window), "-m", "presentImporter", "-p", params],
                ["--presenter", f"script:{typed_scripts[key]}", "--state-dir", state(f"{key}-w{window}")])
    return typed | {
        "open_dialogs": ("open-dialogs", ["-n", "10000", "-m", "presentImporter", "-p", IMPORTER_PARAMS],
                         ["--max-dialogs-per-client", "10000", "--state-dir", ":memory:"]),
        # The plain-text cycle one at a time with every thread sleeping as soon as it is out of
        # work: what spinning before sleeping is worth, in the same run.
        "importer_text_w1_nospin": (
            "cycles", ["-n", str(cycles), "-W", "1", "-m", "presentImporter", "-p", json.dumps({"allowedContentTypes": ["public.plain-text"]})],
            ["--presenter", f"script:{typed_scripts['text']}", "--state-dir", state("text-w1-nospin"), "--spin-microseconds", "0"]),
        "importer_w1": ("cycles", ["-n", str(cycles), "-W", "1", "-m", "presentImporter", "-p", IMPORTER_PARAMS],
                        ["--presenter", f"script:{importer_script}", "--state-dir", state("w1")]),
        "importer_w16": ("cycles", ["-n", str(cycles), "-W", "16", "-m", "presentImporter", "-p", IMPORTER_PARAMS],
                         ["--presenter", f"script:{importer_script}", "--state-dir", state("w16")]),
        "importer_memory": ("cycles", ["-n", str(cycles), "-W", "16", "-m", "presentImporter", "-p", IMPORTER_PARAMS],
                            ["--presenter", f"script:{importer_script}", "--state-dir", ":memory:"]),
        "exporter_w1": ("cycles", ["-n", str(cycles // 10), "-W", "1", "-m", "presentExporter", "-p", exporter_params],
                        ["--presenter", f"script:{exporter_script}", "--state-dir", state("export")]),
        # The same importer cycle with a presenter answering over the protocol: the client
        # itself over standard I/O, then the daemon's presenter connection for one client and
        # for many at once (each cycle a client's own, one after the other).
        "frontend_w1": ("frontend-cycles", ["-n", str(cycles // 4), "-u", url, *importer], ["--state-dir", state("frontend")]),
        "daemon_1": ("daemon", ["-C", "1", "-n", str(cycles // 4), "-s", socket("daemon-1"), "-u", url, *importer],
                     [f"--listen={socket('daemon-1')}", "--presenter", f"script:{importer_script}", "--state-dir", state("daemon-1")]),
        # Every client of the driver, and its presenter connection, is the same program, so the
        # daemon counts them all as one app: its per-app limit must let them all in.
        "daemon_many": ("daemon", ["-C", str(daemon_clients), "-n", str(daemon_cycles), "-s", socket("daemon-many"), "-u", url, *importer],
                        [f"--listen={socket('daemon-many')}", "--presenter", f"script:{importer_script}",
                         "--state-dir", state("daemon-many"), "--max-clients-per-app", str(daemon_clients + 1)]),
    }


def measure_dialogs(driver: Path, wharf: Path, work: Path, cycles: int, samples: Samples, daemon_clients: int, daemon_cycles: int) -> None:
    for name, (mode, options, arguments) in dialog_workloads(work, cycles, daemon_clients, daemon_cycles).items():
        for state in work.glob("state-*"):
            subprocess.run(["rm", "-rf", str(state)], check=False)
        peer = Peer("wharf", "Wharf", [str(wharf), *arguments], 0, 0, 0, 0)
        try:
            result = run_driver(driver, mode, peer, *options)
        except RuntimeError as error:
            samples.errors.append(f"{name}: {error}")
            print(f"  ! {name}: {error}", file=sys.stderr)
            continue
        if mode == "open-dialogs":
            samples.add("open_idle_kib", result["idle_kib"])
            samples.add("open_kib", result["open_kib"])
            samples.add("open_delta_kib", result["open_kib"] - result["idle_kib"])
        else:
            samples.add(f"{name}_per_s", result["per_second"])
            for key in ("p50_us", "p99_us", "vmrss_kib", "threads"):
                if key in result:
                    samples.add(f"{name}_{key}", result[key])


# MARK: - Placement: which CPUs the driver and the server run on


def pinned(cpu: int) -> list[str]:
    return ["taskset", "-c", str(cpu)]


def measure_placement(driver: Path, wharf: Path, c_peer: Path, work: Path, pings: int, cycles: int, samples: Samples) -> None:
    """The figures a wake-up's cost decides, with the driver and the server pinned to one CPU,
    then to two: the C floor's and Wharf's ping round trips, and the `public.plain-text`
    importer cycle. Unpinned, the kernel chooses, run by run, which of the two it gets."""
    identifier, pick = TYPED_IMPORTERS["text"]
    (work / pick).write_text("picked\n")
    script = work / "placement-script.json"
    script.write_text(json.dumps([{"choose": [str(work / pick)]}] * (cycles + 100)))
    params = json.dumps({"allowedContentTypes": [identifier]})
    placements = [("one_cpu", pinned(0), [])]
    if (os.cpu_count() or 1) > 1:
        placements.append(("two_cpus", pinned(0), pinned(1)))
    for name, pin, prefix in placements:
        trials = [
            (f"c_rt_{name}_us", "roundtrip", Peer("c", "C floor", [str(c_peer)], 0, 0, 0, 0), ["-n", str(pings), "-w", "1000"]),
            (f"wharf_rt_{name}_us", "roundtrip", Peer("wharf", "Wharf", [str(wharf)], 0, 0, 0, 0), ["-n", str(pings), "-w", "1000"]),
        ]
        for window in (1, 16):
            arguments = ["--presenter", f"script:{script}", "--state-dir", str(work / f"state-placement-{name}-w{window}")]
            trials.append((f"text_w{window}_{name}_per_s", "cycles", Peer("wharf", "Wharf", [str(wharf), *arguments], 0, 0, 0, 0),
                           ["-n", str(cycles), "-W", str(window), "-m", "presentImporter", "-p", params]))
        for key, mode, peer, options in trials:
            for state in work.glob("state-placement-*"):
                subprocess.run(["rm", "-rf", str(state)], check=False)
            try:
                result = run_driver(driver, mode, peer, *options, prefix=prefix, pin=pin)
            except RuntimeError as error:
                samples.errors.append(f"{key}: {error}")
                print(f"  ! {key}: {error}", file=sys.stderr)
                continue
            samples.add(key, result["median_us"] if mode == "roundtrip" else result["per_second"])


# MARK: - Instruction counts


def callgrind_total(path: Path) -> int:
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def callgrind(driver: Path, peer: Peer, pings: int, work: Path) -> dict:
    """Instructions executed by the server (all threads) for `pings` sequential pings, minus a
    run that only initializes and shuts down: the cost of one ping, and of starting up."""
    result = {}
    for count in (0, pings):
        out = work / f"callgrind.{peer.key}.{count}.out"
        prefix = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        run_driver(driver, "roundtrip", peer, "-n", str(count), "-w", "0", prefix=prefix, timeout=1800)
        result[count] = callgrind_total(out)
    return {
        "startup_ir": result[0],
        "total_ir": result[pings],
        "per_ping_ir": (result[pings] - result[0]) / pings,
        "profile": work / f"callgrind.{peer.key}.{pings}.out",
    }


def top_functions(profile: Path, limit: int = 15) -> list[tuple[int, str]]:
    """The functions with the most instructions of their own (self cost), from callgrind_annotate."""
    try:
        text = subprocess.run(["callgrind_annotate", "--threshold=100", str(profile)], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    rows = []
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)", line)
        if not match or "PROGRAM TOTALS" in line:
            continue
        rows.append((int(match.group(1).replace(",", "")), simplify_symbol(match.group(2))))
        if len(rows) == limit:
            break
    return rows


def simplify_symbol(location: str) -> str:
    """`file:function [object]` with Swift symbols demangled and paths shortened."""
    match = re.match(r"(.*?):(.*) \[(.*)\]$", location)
    if not match:
        return location
    file, function, obj = match.groups()
    if function.startswith("$s"):
        try:
            function = subprocess.run(["swift", "demangle", "--simplified", "--compact", function], capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            pass
    file = file.replace("./", "").split("/")[-1] if file != "???" else ""
    where = f"{file}: " if file and not file.startswith("<") else ""
    return f"{where}{function} ({Path(obj).name})"


# MARK: - Soak under valgrind


def soak_under_valgrind(cycles: int) -> dict:
    """The soak test (Tests/WharfEndToEndTests/SoakTests.swift), scaled to `cycles`, with every
    server it starts under valgrind's leak checker: definitely-lost bytes per process."""
    with tempfile.TemporaryDirectory(prefix="wharf-soak-valgrind-") as logs:
        environment = dict(os.environ, WHARF=str(BENCH / "soak" / "valgrind-wharf.sh"), SOAK_VALGRIND_LOGS=logs,
                           SOAK_CYCLES=str(cycles), SOAK_UNDER_VALGRIND="1")
        started = time.monotonic()
        completed = subprocess.run(["swift", "test", "--skip-build", "--filter", "Soak"], cwd=ROOT, env=environment,
                                   capture_output=True, text=True, timeout=3600)
        seconds = time.monotonic() - started
        lost, processes, other = 0, 0, {}
        for log in Path(logs).glob("valgrind.*.log"):
            text = log.read_text(errors="replace")
            processes += 1
            match = re.search(r"definitely lost: ([\d,]+) bytes", text)
            if match:
                lost += int(match.group(1).replace(",", ""))
            # Other errors (not leaks): count them by their first frame in Wharf's sources.
            for block in re.split(r"==\d+== \n", text):
                kind = re.search(r"==\d+== (Conditional jump[^\n]*|Invalid (?:read|write)[^\n]*|Use of uninitialised[^\n]*)", block)
                if not kind:
                    continue
                frame = re.search(r"\((\w+\.swift):(\d+)\)", block)
                key = f"{kind.group(1).strip()} at {frame.group(1)}:{frame.group(2)}" if frame else kind.group(1).strip()
                other[key] = other.get(key, 0) + 1
        summary = [line for line in completed.stdout.splitlines() if "Test run with" in line or "✘" in line]
        return {"status": completed.returncode, "seconds": seconds, "lost": lost, "processes": processes,
                "other": other, "summary": summary[-6:], "cycles": cycles}


# MARK: - Machine


def machine(driver: Path) -> dict:
    def cpu_model() -> str:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
        return platform.processor() or "unknown"

    def memory() -> str:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
        return "unknown"

    def output(*command: str) -> str:
        try:
            return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"

    def mitigations() -> str:
        """What the kernel does on every entry and exit for the two CPU flaws that cost most."""
        found = []
        for flaw in ("meltdown", "spectre_v2"):
            try:
                found.append(f"{flaw}: {(Path('/sys/devices/system/cpu/vulnerabilities') / flaw).read_text().strip()}")
            except OSError:
                found.append(f"{flaw}: unknown")
        return "; ".join(found)

    def syscall_ns() -> str:
        try:
            return f"{run_driver_alone(driver, 'syscall')['fstat_ns']:.0f} ns"
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            return "unknown"

    def idle_states() -> str:
        """How an idle CPU waits: halted (a wake-up needs an interrupt, in a virtual machine an
        exit to the host) or polling for a while first."""
        try:
            idle_driver = Path("/sys/devices/system/cpu/cpuidle/current_driver").read_text().strip()
        except OSError:
            return "cpuidle driver unknown"
        try:
            poll = int(Path("/sys/module/haltpoll/parameters/guest_halt_poll_ns").read_text())
            return f"cpuidle driver {idle_driver}, guest_halt_poll_ns {poll}" + (" (idle CPUs halt at once)" if poll == 0 else "")
        except (OSError, ValueError):
            return f"cpuidle driver {idle_driver}"

    return {
        "idle": idle_states(),
        "cpus": os.cpu_count(),
        "cpu": cpu_model(),
        "mitigations": mitigations(),
        "syscall": syscall_ns(),
        "memory": memory(),
        "kernel": platform.release(),
        "swift": output("swift", "--version").splitlines()[0] if output("swift", "--version") != "unknown" else "unknown",
        "commit": output("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"),
        "dirty": output("git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no") != "",
    }


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# MARK: - Other helpers' benchmarks


# bench/ folders that are this script's own tools, not benchmarks of their own.
OWN_FOLDERS = {"driver", "fuzz", "notes", "out", "peers", "sanitizers", "soak"}


def sub_benchmarks(wharf: Path) -> list[tuple[str, str, int, float]]:
    """Runs every bench/<name>/run.sh (content types, export, dialog listing, floods) and keeps its
    output verbatim: each owns its own comparison and prints its own table."""
    results = []
    for script in sorted(BENCH.glob("*/run.sh")):
        name = script.parent.name
        if name in OWN_FOLDERS:
            continue
        print(f"• {name}: {script.relative_to(ROOT)}", file=sys.stderr)
        started = time.monotonic()
        try:
            # The export benchmark measures the real server when told how to drive it; every one
            # measures the binary the rest of the run measured (the shipped build).
            environment = dict(os.environ, WHARF_EXPORT_CMD=str(BENCH / "driver" / "wharf-export.sh"), WHARF=str(wharf.resolve()))
            completed = subprocess.run(["bash", str(script)], cwd=ROOT, capture_output=True, text=True, timeout=3600, env=environment)
            text = completed.stdout.strip() or completed.stderr.strip()[-2000:]
            status = completed.returncode
        except subprocess.TimeoutExpired:
            text, status = "(no result within an hour)", -1
        results.append((name, text, status, time.monotonic() - started))
    return results


# MARK: - Report


def judge_target_line(line: str):
    """A sub-benchmark's line naming a target, as (figure, value, goal, met), or None.

    Understands the forms those scripts print: `… 2.48x … vs cp (target >= 0.8)`,
    `speed-up: 1.48x in process, … (target: at least 1.5x)`, `… 13.5 MiB (target < 64)`."""
    goal = re.search(r"\(target:? *(>=|≥|at least|<|under) *([\d.]+)", line)
    if not goal:
        return None
    at_least = goal.group(1) in (">=", "≥", "at least")
    limit = float(goal.group(2))
    value = re.search(r"([\d.]+)x", line) if at_least else re.search(r"([\d.]+) *(MiB|MB|ms|s)\b", line)
    if not value:
        return None
    number = float(value.group(1))
    title = re.split(r"\s{2,}|:", line.strip())[0].strip()
    shown = f"{number:g}x" if at_least else f"{number:g} {value.group(2)}"
    return title, shown, f"{'≥' if at_least else '<'} {limit:g}{'x' if at_least else ''}", (number >= limit) if at_least else (number < limit)


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def spread(values: list[float], digits: int) -> str:
    if not values:
        return "—"
    if len(values) == 1:
        return "(1 run)"
    return f"({min(values):,.{digits}f}–{max(values):,.{digits}f})"


def figure(values: list[float], digits: int, unit: str = "") -> str:
    if not values:
        return "failed"
    return f"{median(values):,.{digits}f}{unit} {spread(values, digits)}"


def ratios(numerator: list[float], denominator: list[float]) -> list[float]:
    """Per-repetition ratios (both lists hold one value per repetition, same order)."""
    return [a / b for a, b in zip(numerator, denominator) if b]


def verdict(ok: bool | None) -> str:
    return "—" if ok is None else ("met" if ok else "**MISSED**")


def write_report(args, info, samples: dict[str, Samples], peers: list[Peer], counts, soak, subs, started, finished, loads) -> list[str]:
    # The floor the targets are judged against waits for input as Wharf does: a look without
    # waiting for up to 100 µs before sleeping (Wharf's --spin-microseconds default).
    wharf, floor = samples["wharf"], samples["c-spin"]
    lines: list[str] = []
    misses: list[str] = []
    say = lines.append

    say("# Wharf benchmarks")
    say("")
    say("This file is written by `make bench` (bench/run.py); edit the script, not the file.")
    say("Every time is a **median over repetitions, with the spread (min–max) in parentheses**;")
    say("each repetition spawns each server afresh and runs every peer back to back, and every")
    say("ratio is taken within one repetition, then its median reported.")
    say("")
    say("## Machine and run")
    say("")
    say(f"- date: {started:%Y-%m-%d %H:%M} to {finished:%H:%M} UTC")
    say(f"- CPU: {info['cpu']}, {info['cpus']} CPUs; memory {info['memory']}; Linux {info['kernel']}")
    say(f"- one system call (`fstat`, `wharf-load syscall`) costs {info['syscall']} here; the kernel's mitigations: "
        f"{info['mitigations']} (a dialog cycle makes about eleven system calls, and two thread wake-ups where threads sleep at once, so its "
        f"rate follows these more than the CPU's model); idle CPUs: {info['idle']}")
    say(f"- {info['swift']}; Wharf at commit {info['commit']}{' (with uncommitted changes)' if info['dirty'] else ''}, release build")
    say(f"- load average at start {loads[0]}, at end {loads[1]} (other work on the machine shows up as spread)")
    say(f"- {args.repeat} repetitions{' (quick run)' if args.quick else ''}")
    say("")

    # Targets
    rt_ratio = ratios(wharf.get("rt_median_us"), floor.get("rt_median_us"))
    targets = []

    def target(name: str, value: str, goal: str, ok: bool | None) -> None:
        targets.append((name, value, goal, verdict(ok)))
        if ok is False:
            misses.append(f"{name}: {value} (target {goal})")

    target("sequential round trip, Wharf ÷ C floor (spinning)", figure(rt_ratio, 2, "x"), "≤ 1.1x", median(rt_ratio) <= 1.1 if rt_ratio else None)
    pipelined_ratio = ratios(wharf.get("pipelined_per_s"), floor.get("pipelined_per_s"))
    target("pipelined pings per second, Wharf ÷ C floor (spinning)", figure(pipelined_ratio, 2, "x"), "≥ 0.9x",
           median(pipelined_ratio) >= 0.9 if pipelined_ratio else None)
    init = wharf.get("initialize_ms")
    target("spawn to `initialize` reply", figure(init, 2, " ms"), "≤ 3 ms", median(init) <= 3 if init else None)
    rss = [kib / 1024 for kib in wharf.get("vmrss_kib")]
    target("idle resident memory (VmRSS)", figure(rss, 2, " MiB"), "≤ 8 MiB", median(rss) <= 8 if rss else None)
    dialogs = samples["dialogs"]
    delta = [kib / 1024 for kib in dialogs.get("open_delta_kib")]
    target("resident memory with 10,000 open dialogs, above idle", figure(delta, 1, " MiB"), "≤ 50 MB (47.7 MiB) more",
           median(delta) <= 50e6 / 2**20 if delta else None)
    for key, (identifier, _) in TYPED_IMPORTERS.items():
        for window, goal in ((1, 20_000), (16, 40_000)):
            cycles = dialogs.get(f"importer_{key}_w{window}_per_s")
            title = f"importer cycles per second, `{identifier}`, " + ("one at a time" if window == 1 else "16 open at once")
            target(title, figure(cycles, 0), f"≥ {goal:,}", median(cycles) >= goal if cycles else None)

    # The other benchmarks print their own target lines; judge those too.
    for name, text, status, _ in subs:
        for line in text.splitlines():
            judged = judge_target_line(line)
            if judged:
                title, value, goal, ok = judged
                target(f"{title} (bench/{name})", value, goal, ok)

    say("## Targets")
    say("")
    say("| figure | Wharf | target | |")
    say("| --- | --- | --- | --- |")
    for name, value, goal, mark in targets:
        say(f"| {name} | {value} | {goal} | {mark} |")
    say("")
    if misses:
        say("**Missed:**")
        say("")
        for miss in misses:
            say(f"- {miss}")
    else:
        say("No measured target was missed.")
    say("")

    # Side by side
    say("## Side by side: `ping` over LSP framing on pipes")
    say("")
    say("| | " + " | ".join(peer.title for peer in peers) + " |")
    say("| --- |" + " --- |" * len(peers))

    def row(title: str, key: str, digits: int, unit: str = "", scale: float = 1) -> None:
        cells = [figure([v * scale for v in samples[peer.key].get(key)], digits, unit) for peer in peers]
        say(f"| {title} | " + " | ".join(cells) + " |")

    row("round trip, median of each run (µs)", "rt_median_us", 2)
    row("round trip, 99th percentile (µs)", "rt_p99_us", 2)
    row("pipelined pings per second", "pipelined_per_s", 0)
    row("spawn to `initialize` reply (ms)", "initialize_ms", 2)
    row("idle VmRSS (MiB)", "vmrss_kib", 2, scale=1 / 1024)
    row("idle VmHWM, peak (MiB)", "vmhwm_kib", 2, scale=1 / 1024)
    row("threads when idle", "threads", 0)
    say("")
    say("Ratios within each repetition (Wharf's figure ÷ the peer's; below 1 means Wharf is faster or smaller):")
    say("")
    say("| | " + " | ".join(peer.title for peer in peers if peer.key != "wharf") + " |")
    say("| --- |" + " --- |" * (len(peers) - 1))
    for title, key in [("round trip median", "rt_median_us"), ("round trip p99", "rt_p99_us"), ("pipelined throughput", "pipelined_per_s"),
                       ("spawn to `initialize`", "initialize_ms"), ("idle VmRSS", "vmrss_kib")]:
        cells = [figure(ratios(wharf.get(key), samples[peer.key].get(key)), 2, "x") for peer in peers if peer.key != "wharf"]
        say(f"| {title} | " + " | ".join(cells) + " |")
    say("")
    say("Workload per repetition and peer: " + "; ".join(
        f"{peer.title}: {peer.roundtrips:,} sequential pings after {peer.warmup:,} warm-up, {peer.pipelined:,} pipelined, "
        f"{peer.spawns} spawns (median taken)" for peer in peers) + ". Idle memory is read from `/proc/PID/status` after "
        "`initialize`, 100 pings and a 300 ms pause.")
    say("")
    say("The peers: **C floor** is bench/peers/c-jansson/ping-server.c, a single-threaded loop that parses each "
        "frame with jansson and writes the reply in one `write` (the least any server here can do), and sleeps in `read` "
        "between messages; **C floor, spinning** is the same program looking for input without waiting (`poll`, then "
        "`sched_yield`) for up to 100 µs before it sleeps, as Wharf does by default (`--spin-microseconds`), and the "
        "targets are judged against it; **python-lsp-jsonrpc** "
        "is bench/peers/python/lsp_jsonrpc_ping.py (the JSON-RPC layer of python-lsp-server, handlers on the read thread); "
        "**pygls** is bench/peers/python/pygls_ping.py (a `LanguageServer` with a custom `ping` feature). "
        "All of them answer `initialize`, `ping`, `shutdown` and `exit`; the driver checks every reply's id and result. "
        "**Wharf** is the binary `make release` builds and `make deb` ships (the Swift runtime linked in statically, "
        "full RELRO); **Wharf, shared runtime** is the same source built with a plain `swift build -c release` "
        "(the Swift runtime's shared libraries mapped and bound at start-up), for comparison. The targets are judged on "
        "the shipped build.")
    say("")
    for peer in peers:
        for error in samples[peer.key].errors:
            say(f"- failure: {error}")
    say("")

    # Dialogs
    say("## Dialogs")
    say("")
    say("Wharf alone (the peers have no dialogs), through the same driver and pipes. A cycle is `presentImporter` → "
        "the `--presenter script:FILE` presenter picks a file → `dialog/completed` with the URL, which is granted "
        "to the client (a row in the access store).")
    say("")
    say("| figure | median (spread) |")
    say("| --- | --- |")
    for title, key, digits, scale in [
        ("resident memory, idle (MiB)", "open_idle_kib", 1, 1 / 1024),
        ("resident memory with 10,000 open importers (MiB)", "open_kib", 1, 1 / 1024),
        ("importer cycles/s, `public.item`, one at a time, state on disk", "importer_w1_per_s", 0, 1),
        ("importer cycles/s, `public.item`, 16 open at once, state on disk", "importer_w16_per_s", 0, 1),
        ("importer cycles/s, `public.plain-text`, one at a time, state on disk", "importer_text_w1_per_s", 0, 1),
        ("importer cycles/s, `public.plain-text`, 16 open at once, state on disk", "importer_text_w16_per_s", 0, 1),
        ("importer cycles/s, `public.plain-text`, one at a time, `--spin-microseconds 0` (threads sleep at once)",
         "importer_text_w1_nospin_per_s", 0, 1),
        ("importer cycles/s, `public.image`, one at a time, state on disk", "importer_image_w1_per_s", 0, 1),
        ("importer cycles/s, `public.image`, 16 open at once, state on disk", "importer_image_w16_per_s", 0, 1),
        ("importer cycles/s, 16 open at once, `--state-dir :memory:`", "importer_memory_per_s", 0, 1),
        ("exporter cycles/s, one at a time (one small text file written, fsynced, renamed)", "exporter_w1_per_s", 0, 1),
    ]:
        say(f"| {title} | {figure([v * scale for v in dialogs.get(key)], digits)} |")
    for error in dialogs.errors:
        say(f"- failure: {error}")
    say("")
    say(f"Workloads: {args.dialog_cycles:,} importer cycles and {args.dialog_cycles // 10:,} exporter cycles per repetition; "
        "10,000 importers opened 64 at a time with the driver claiming to present them (so they stay open).")
    say("")

    # Placement
    placement = samples["placement"]
    say("## One CPU or two")
    say("")
    say("The same driver and servers with both pinned (`taskset`) to one CPU, then the driver to one and the server "
        "to the other. A wake-up that crosses CPUs costs what the machine's idle states make it cost (here: "
        f"{info['idle']}); unpinned, the kernel decides, run by run, whether the two share a CPU, and the C floor's "
        "round trip moves with it as much as Wharf's does. The targets above are judged unpinned; these say how much "
        "of a figure is the machine's. Pinned, Wharf may run on one processor only, so by default it does not spin "
        "before sleeping, and the C floor here does not either: these are the wake-ups' costs.")
    say("")
    say("| figure | one CPU | two CPUs |")
    say("| --- | --- | --- |")
    for title, key, digits in [
        ("C floor, ping round trip (µs)", "c_rt_{}_us", 2),
        ("Wharf, ping round trip (µs)", "wharf_rt_{}_us", 2),
        ("Wharf, importer cycles/s, `public.plain-text`, one at a time", "text_w1_{}_per_s", 0),
        ("Wharf, importer cycles/s, `public.plain-text`, 16 open at once", "text_w16_{}_per_s", 0),
    ]:
        say(f"| {title} | {figure(placement.get(key.format('one_cpu')), digits)} | "
            f"{figure(placement.get(key.format('two_cpus')), digits)} |")
    for error in placement.errors:
        say(f"- failure: {error}")
    say("")

    # The daemon
    say("## The daemon")
    say("")
    say("The importer cycle of the table above, timed one cycle at a time (from the request written to its "
        "`dialog/completed` read), with the dialog answered four ways, all in the same run: by the server's script; "
        "by the client itself over standard I/O (`presentsDialogs`: `presenter/show`, `dialog/choose`); by the "
        "daemon's presenter connection for one client over the socket; and by that connection for "
        f"{args.daemon_clients} clients at once, each running {args.daemon_cycles} cycles one after the other "
        "(every client checks that every ending it reads is its own dialog's, once; the presenter that it saw "
        "every dialog, with the client it belongs to). Percentiles are over every cycle of a repetition; "
        "each figure is their median over repetitions.")
    say("")
    say("| cycle | p50 (µs) | p99 (µs) | cycles/s |")
    say("| --- | --- | --- | --- |")
    for title, name in [
        ("standard I/O, answered by `--presenter script:FILE`", "importer_w1"),
        ("standard I/O, answered by the client (`presenter/show` → `dialog/choose`)", "frontend_w1"),
        ("daemon, one client, answered by the presenter connection", "daemon_1"),
        (f"daemon, {args.daemon_clients} clients at once, answered by the presenter connection", "daemon_many"),
    ]:
        say(f"| {title} | {figure(dialogs.get(f'{name}_p50_us'), 0)} | {figure(dialogs.get(f'{name}_p99_us'), 0)} | "
            f"{figure(dialogs.get(f'{name}_per_s'), 0)} |")
    say("")
    rss_many = [kib / 1024 for kib in dialogs.get("daemon_many_vmrss_kib")]
    say(f"With {args.daemon_clients} clients and the presenter connected, the daemon's resident memory was "
        f"{figure(rss_many, 1, ' MiB')} and it ran {figure(dialogs.get('daemon_many_threads'), 0)} threads (one per "
        "connection, idle while its client is, and the shared workers). Each run ends with SIGTERM while every client "
        "is still connected; the daemon must exit 0.")
    say("")

    # Instruction counts
    say("## Instruction counts (callgrind)")
    say("")
    if counts:
        say(f"`valgrind --tool=callgrind` on the server, all threads, for {args.callgrind_pings:,} sequential pings "
            "after `initialize`, minus a run with `initialize` and `shutdown` only, neither spinning before it sleeps "
            "(`--spin-microseconds 0`: the looks are not work). These do not move with the machine's load.")
        say("")
        say("| | instructions per ping | start-up and shutdown | total |")
        say("| --- | --- | --- | --- |")
        for key, count in counts.items():
            if isinstance(count, str):
                say(f"| {key} | {count} | | |")
                continue
            say(f"| {count['title']} | {count['per_ping_ir']:,.0f} | {count['startup_ir']:,} | {count['total_ir']:,} |")
        if "wharf" in counts and "c" in counts and not isinstance(counts["wharf"], str) and not isinstance(counts["c"], str):
            say("")
            say(f"Wharf executes {counts['wharf']['per_ping_ir'] / counts['c']['per_ping_ir']:.2f}x the floor's instructions per ping.")
        top = counts.get("wharf", {}).get("top") if isinstance(counts.get("wharf"), dict) else None
        if top:
            say("")
            say(f"Where Wharf's instructions go in that run (self cost, top {len(top)}, whole run):")
            say("")
            say("| instructions | share | function |")
            say("| --- | --- | --- |")
            total = counts["wharf"]["total_ir"]
            for ir, name in top:
                say(f"| {ir:,} | {100 * ir / total:.1f}% | {name.replace('|', '∣')} |")
    else:
        say("Not run (`--no-callgrind`, or valgrind is missing).")
    say("")

    # Soak
    say("## Soak under valgrind")
    say("")
    if soak:
        say(f"The soak test with {soak['cycles']:,} cycles (instead of 100,000) and every server it starts "
            f"(the long session, 20 disconnecting sessions, `wharf access list`) under `valgrind --leak-check=full` "
            f"with bench/soak/valgrind.supp (Swift's weak-reference side tables, explained there): {soak['processes']} "
            f"processes, test run exit status {soak['status']}, {soak['seconds']:.0f} s.")
        say("")
        verdict_lost = "met" if soak["lost"] == 0 else "**MISSED**"
        say(f"| definitely lost, all processes | {soak['lost']:,} bytes | target 0 | {verdict_lost} |")
        say("| --- | --- | --- | --- |")
        if soak["lost"]:
            misses.append(f"soak under valgrind: {soak['lost']} bytes definitely lost")
        if soak["status"] != 0:
            misses.append("soak under valgrind: the test failed")
        say("")
        if soak["other"]:
            say("Other valgrind reports (not leaks), by first frame in Wharf's sources, summed over processes:")
            say("")
            for key, count in sorted(soak["other"].items(), key=lambda item: -item[1]):
                say(f"- {count} × {key}")
            say("")
        for line in soak["summary"]:
            say(f"    {line}")
    else:
        say("Not run (`--no-soak`).")
    say("")

    # Others
    say("## Content types, export, dialog listing and floods")
    say("")
    if subs:
        for name, text, status, seconds in subs:
            say(f"### bench/{name}/run.sh")
            say("")
            if status != 0:
                say(f"**Failed** (exit status {status}); its output:")
                misses.append(f"bench/{name}/run.sh failed")
            say("```")
            say(text)
            say("```")
            say(f"({seconds:.0f} s)")
            say("")
    else:
        say("No bench/*/run.sh scripts present yet." if not args.skip_subs else "Skipped (`--skip-subs`).")
        say("")

    # Notes written by hand
    for note in sorted((BENCH / "notes").glob("*.md")):
        say(note.read_text().rstrip())
        say("")

    say("## Reproducing")
    say("")
    say("`make bench` (all of the above; `BENCH_REPEAT=N` for more repetitions, `BENCH_QUICK=1` for a short run).")
    say("One figure by hand, e.g. `bench/out/wharf-load roundtrip -n 10000 -- .build/release/wharf`; "
        "modes `roundtrip`, `throughput`, `startup`, `rss`, `cycles`, `frontend-cycles`, `daemon`, `open-dialogs` "
        "(see bench/driver/wharf-load.c). The daemon under 200 clients: `bench/out/wharf-load daemon -C 200 -n 100 "
        "-s /tmp/w.sock -u file:///etc/hostname -m presentImporter -p '{\"allowedContentTypes\":[\"public.item\"]}' -- "
        ".build/release/wharf --listen=/tmp/w.sock`.")
    say("")
    args.output.write_text("\n".join(lines))
    return misses


# MARK: - Main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wharf", type=Path, required=True)
    parser.add_argument("--wharf-shared", type=Path, help="the same, built with the shared Swift runtime (an extra column)")
    parser.add_argument("--driver", type=Path, required=True)
    parser.add_argument("--c-peer", type=Path, required=True)
    parser.add_argument("--python", type=Path, required=True, help="the virtual environment's python, with the peers' packages")
    parser.add_argument("--repeat", type=int, default=int(os.environ.get("BENCH_REPEAT", "5")))
    parser.add_argument("--output", type=Path, default=BENCH / "README.md")
    parser.add_argument("--quick", action="store_true", help="small workloads, for checking the harness")
    parser.add_argument("--no-callgrind", action="store_true")
    parser.add_argument("--skip-subs", action="store_true", help="skip bench/*/run.sh")
    parser.add_argument("--callgrind-pings", type=int, default=10_000)
    parser.add_argument("--dialog-cycles", type=int, default=20_000)
    parser.add_argument("--daemon-clients", type=int, default=200, help="clients connected to the daemon at once")
    parser.add_argument("--daemon-cycles", type=int, default=100, help="importer cycles each daemon client runs")
    parser.add_argument("--soak-cycles", type=int, default=3_000, help="cycles of the soak under valgrind")
    parser.add_argument("--no-soak", action="store_true", help="skip the soak under valgrind")
    args = parser.parse_args()

    q = 10 if args.quick else 1
    peers = [
        Peer("c", "C floor (jansson)", [str(args.c_peer)], 10_000 // q, 1_000 // q, 200_000 // q, 20 // (2 if args.quick else 1)),
        Peer("c-spin", "C floor, spinning", [str(args.c_peer), "--spin", "100"], 10_000 // q, 1_000 // q, 200_000 // q,
             20 // (2 if args.quick else 1)),
        Peer("wharf", "Wharf", [str(args.wharf)], 10_000 // q, 1_000 // q, 200_000 // q, 20 // (2 if args.quick else 1)),
        *([Peer("wharf-shared", "Wharf, shared runtime", [str(args.wharf_shared)], 10_000 // q, 1_000 // q, 200_000 // q, 20 // (2 if args.quick else 1))]
          if args.wharf_shared else []),
        Peer("pylsp", "python-lsp-jsonrpc", [str(args.python), str(BENCH / "peers/python/lsp_jsonrpc_ping.py")], 10_000 // q, 1_000 // q, 50_000 // q, 5),
        Peer("pygls", "pygls", [str(args.python), str(BENCH / "peers/python/pygls_ping.py")], 2_000 // q, 200 // q, 5_000 // q, 3),
    ]
    if args.quick:
        args.callgrind_pings = 1_000
        args.dialog_cycles = 2_000
        args.soak_cycles = 500
        args.daemon_clients = 20
        args.daemon_cycles = 20

    # Every server gets a state directory of its own: a benchmark must not touch the grants of
    # the person running it.
    state_home = tempfile.TemporaryDirectory(prefix="wharf-bench-state-")
    os.environ["XDG_STATE_HOME"] = state_home.name
    started = datetime.datetime.now(datetime.timezone.utc)
    loads = [load_average()]
    info = machine(args.driver)
    samples = {peer.key: Samples() for peer in peers}
    samples["dialogs"] = Samples()
    samples["placement"] = Samples()
    with tempfile.TemporaryDirectory(prefix="wharf-bench-") as work:
        for repetition in range(1, args.repeat + 1):
            for peer in peers:
                print(f"• repetition {repetition}/{args.repeat}: {peer.title}", file=sys.stderr)
                measure_once(args.driver, peer, samples[peer.key])
            print(f"• repetition {repetition}/{args.repeat}: dialogs", file=sys.stderr)
            measure_dialogs(args.driver, args.wharf, Path(work), args.dialog_cycles, samples["dialogs"],
                            args.daemon_clients, args.daemon_cycles)
            print(f"• repetition {repetition}/{args.repeat}: placement", file=sys.stderr)
            measure_placement(args.driver, args.wharf, args.c_peer, Path(work), peers[0].roundtrips,
                              args.dialog_cycles, samples["placement"])

    counts: dict = {}
    if not args.no_callgrind and subprocess.run(["which", "valgrind"], capture_output=True).returncode == 0:
        with tempfile.TemporaryDirectory(prefix="wharf-callgrind-") as directory:
            # Both sleep as soon as they are out of input: spinning's looks are not work, and under
            # valgrind, which runs one thread at a time, they would only be counted.
            counted = [Peer("c", "C floor (jansson)", [str(args.c_peer)], 0, 0, 0, 0),
                       Peer("wharf", "Wharf", [str(args.wharf), "--spin-microseconds", "0"], 0, 0, 0, 0)]
            for peer in counted:
                print(f"• callgrind: {peer.title}", file=sys.stderr)
                try:
                    count = callgrind(args.driver, peer, args.callgrind_pings, Path(directory))
                    count["title"] = peer.title
                    if peer.key == "wharf":
                        count["top"] = top_functions(count["profile"])
                    counts[peer.key] = count
                except RuntimeError as error:
                    counts[peer.title] = f"failed: {error}"

    soak = None
    if not args.no_soak and subprocess.run(["which", "valgrind"], capture_output=True).returncode == 0:
        print("• soak under valgrind", file=sys.stderr)
        soak = soak_under_valgrind(args.soak_cycles)
    subs = [] if args.skip_subs else sub_benchmarks(args.wharf)
    loads.append(load_average())
    finished = datetime.datetime.now(datetime.timezone.utc)
    misses = write_report(args, info, samples, peers, counts, soak, subs, started, finished, loads)
    print(f"wrote {args.output}", file=sys.stderr)
    for miss in misses:
        print(f"MISSED: {miss}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
