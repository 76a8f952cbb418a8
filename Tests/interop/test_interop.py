"""Each ecosystem's own JSON-RPC client, unmodified, drives the real wharf through the scenario
of scenario.py: initialize as a frontend presenter, presenter/show → dialog/list →
dialog/choose, a lazy exporter whose exporter/snapshot the client answers, cancel,
$/cancelRequest, shutdown and exit."""
from __future__ import annotations

import sys
from typing import Any, Dict

import pytest

import scenario
from conftest import SYSTEM_PYTHON, program, venv_program


def test_jsonrpc_glib_through_pygobject(drive: Any, fixture: Dict[str, str], wharf_version: str) -> None:
    # GNOME Builder's library; sends "params": null for shutdown and exit, ids 1, 2, 3…
    report = drive([SYSTEM_PYTHON, "jsonrpc_glib_driver.py"])
    scenario.check(report, fixture, "jsonrpc-glib", wharf_version)


def test_pygls_json_rpc_client(drive: Any, fixture: Dict[str, str], wharf_version: str) -> None:
    # Sends "params": null for shutdown and exit, a Content-Type header, UUID string ids.
    report = drive([sys.executable, "pygls_driver.py"])
    scenario.check(report, fixture, "pygls", wharf_version)


def test_python_lsp_jsonrpc_endpoint(drive: Any, fixture: Dict[str, str], wharf_version: str) -> None:
    # Omits absent params; escapes "/" as "\/" in every string (method names and URLs too).
    report = drive([sys.executable, "python_lsp_jsonrpc_driver.py"])
    scenario.check(report, fixture, "python-lsp-jsonrpc", wharf_version)


def test_neovim_vim_lsp_rpc(drive: Any, fixture: Dict[str, str], wharf_version: str) -> None:
    report = drive([venv_program("nvim"), "--clean", "--headless", "-l", "neovim_driver.lua"])
    scenario.check(report, fixture, "vim.lsp.rpc", wharf_version)


def test_emacs_jsonrpc_el(drive: Any, fixture: Dict[str, str], wharf_version: str) -> None:
    # Eglot's library; sends "params": null for initialized, shutdown and exit, and reads {}
    # and null alike (nil).
    report = drive([program("emacs"), "-Q", "--batch", "-l", "jsonrpc_el_driver.el"])
    scenario.check(report, fixture, "jsonrpc.el", wharf_version, empty_object_reads_as_null=True)


def test_neovim_empty_lua_table_as_params(drive: Any, fixture: Dict[str, str]) -> None:
    report = drive([venv_program("nvim"), "--clean", "--headless", "-l", "neovim_empty_table.lua"])
    assert report["exitStatus"] == 0
    assert report["ping"] == {"result": {}}, report["ping"]
    assert "result" in report["listAccess"], report["listAccess"]
