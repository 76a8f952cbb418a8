"""Fixtures of the interoperability suite: the wharf binary, the clients' programs, and one
fresh folder per run (see scenario.py)."""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any, Dict, Iterator, List

import pytest

HERE = pathlib.Path(__file__).resolve().parent
DRIVERS = HERE / "drivers"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "support"))

import built  # noqa: E402
import scenario  # noqa: E402

#: Debian's Python, which has PyGObject (python3-gi) for jsonrpc-glib; the python3 on PATH may
#: be another build without it.
SYSTEM_PYTHON = "/usr/bin/python3"
DRIVER_TIMEOUT = 90


@pytest.fixture(scope="session")
def wharf() -> str:
    return built.wharf()


@pytest.fixture(scope="session")
def wharf_version(wharf: str) -> str:
    # `wharf 0.1.0 (protocol 0.1)`
    return subprocess.run([wharf, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]


@pytest.fixture(scope="session")
def big_directory(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return scenario.make_big_directory(tmp_path_factory.mktemp("big"))


@pytest.fixture
def fixture(tmp_path: pathlib.Path, big_directory: pathlib.Path) -> Dict[str, str]:
    return scenario.make_fixture(tmp_path.resolve(), big_directory)


def venv_program(name: str) -> str:
    """A program installed into the virtual environment this pytest runs in (nvim)."""
    path = pathlib.Path(sys.executable).parent / name
    assert path.exists(), f"{name} is not installed next to {sys.executable}: make test-interop installs it"
    return str(path)


def run_driver(command: List[str], fixture: Dict[str, str], wharf: str) -> Dict[str, Any]:
    """Runs a driver against wharf; its report, or a failure with everything it and wharf said."""
    environment = {**os.environ, "INTEROP_FIXTURE": json.dumps(fixture), "XDG_STATE_HOME": fixture["out"] + "-state"}
    finished = subprocess.run([*command, wharf], env=environment, capture_output=True, text=True,
                              timeout=DRIVER_TIMEOUT, cwd=str(DRIVERS))
    log = pathlib.Path(fixture["log"])
    story = (f"\n--- driver stdout\n{finished.stdout[-3000:]}\n--- driver stderr\n{finished.stderr[-3000:]}"
             f"\n--- wharf log\n{log.read_text()[-3000:] if log.exists() else '(none)'}")
    assert finished.returncode == 0, f"{command[0]} exited with {finished.returncode}{story}"
    assert pathlib.Path(fixture["report"]).exists(), f"no report{story}"
    return scenario.load_report(fixture)


@pytest.fixture
def drive(fixture: Dict[str, str], wharf: str) -> Iterator[Any]:
    yield lambda command: run_driver(command, fixture, wharf)


def program(name: str) -> str:
    found = shutil.which(name)
    assert found, f"{name} is not installed: make test-interop installs it"
    return found
