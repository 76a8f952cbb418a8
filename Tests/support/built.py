"""The wharf binary the Python suites drive: $WHARF (as make passes it), else the debug build
of this checkout."""
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def wharf() -> str:
    """Its absolute path; fails saying what to do when there is no such executable."""
    path = os.path.abspath(os.environ.get("WHARF") or ROOT / ".build" / "debug" / "wharf")
    assert os.access(path, os.X_OK), f"build wharf first (make build) or set $WHARF: {path} is missing"
    return path
