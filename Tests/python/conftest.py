"""Shared fixtures: where the built `wharf` binary is."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
import built  # noqa: E402


@pytest.fixture(scope="session")
def wharf_path() -> str:
    return built.wharf()
