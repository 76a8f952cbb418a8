"""Shared fixtures: where the built `wharf` binary is."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def wharf_path() -> str:
    path = os.environ.get("WHARF") or str(ROOT / ".build" / "debug" / "wharf")
    assert os.access(path, os.X_OK), f"build wharf first (make build): {path} is missing"
    return path
