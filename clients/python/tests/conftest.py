"""Where the built wharf binary and the protocol files are."""
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
PROTOCOL = ROOT / "protocol"
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def wharf_path() -> str:
    path = os.environ.get("WHARF") or str(ROOT / ".build" / "debug" / "wharf")
    assert os.access(path, os.X_OK), f"build wharf first (make build) or set $WHARF: {path} is missing"
    return path


@pytest.fixture
def script(tmp_path):
    """Writes a --presenter script (a list of steps) into tmp_path; returns its arguments."""
    import json

    def write(steps, name="script.json"):
        path = tmp_path / name
        path.write_text(json.dumps(steps))
        return ["--presenter", f"script:{path}", "--state-dir", ":memory:"]
    return write
