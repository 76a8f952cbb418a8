"""The README's examples run unchanged and print what the README says."""
import os
import pathlib
import re
import subprocess
import sys

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
README = (PACKAGE / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


def run(code, wharf_path, tmp_path):
    environment = {**os.environ, "WHARF": wharf_path, "XDG_STATE_HOME": str(tmp_path),
                   "PYTHONPATH": str(PACKAGE / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-c", code], cwd=PACKAGE, env=environment, capture_output=True,
                          text=True, timeout=60)


def test_the_ten_line_example_prints_what_the_readme_shows(wharf_path, tmp_path):
    example = BLOCKS[0]
    assert len(example.strip().splitlines()) <= 10
    shown = re.search(r"it prints:\n\n```\n(.*?)```", README, re.S).group(1)
    finished = run(example, wharf_path, tmp_path)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout == shown


def test_the_asyncio_example_runs(wharf_path, tmp_path):
    finished = run(BLOCKS[1], wharf_path, tmp_path)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.split("\n") == ["presentationChanged", "completed", "Buy rope.", "Paint the hull.", ""]


def test_the_readme_lists_every_field_of_the_data_types():
    import dataclasses
    import wharf_client
    from wharf_client import core, types
    section = README[README.index("## Data types"):README.index("## asyncio")]
    for cls in (types.InitializeResult, types.ServerInfo, types.ClientIdentity, types.TypeDescription, types.Identification,
                types.DialogFilters, types.ContentTypeChoice, types.DirectoryEntry, types.DirectoryListing, types.Lease, types.AccessEntry,
                types.AccessList, types.DialogOptions, types.ExportDocument, core.DialogEvent):
        assert f"`{cls.__name__}`" in section, cls.__name__
        # Each type the README names can be imported from the package, as the README writes it.
        assert getattr(wharf_client, cls.__name__, None) is cls, f"wharf_client.{cls.__name__} is missing"
        for field in dataclasses.fields(cls):
            assert f"`{field.name}`" in section, f"{cls.__name__}.{field.name}"
    presentation = core.PresentationFields.__init__.__code__.co_names
    for name in ("filenames", "document_count", "filename_label", "allowed_content_types", "content_type_choices"):
        assert f"`{name}`" in section and name in presentation


def test_the_readme_documents_every_spawn_option():
    import inspect
    from wharf_client import WharfClient
    from wharf_client.aio import AsyncWharfClient
    section = README[README.index("## Spawn options"):README.index("## Data types")]
    options = [name for name in inspect.signature(WharfClient.spawn).parameters]
    assert options == [name for name in inspect.signature(AsyncWharfClient.spawn).parameters]
    for name in options:
        assert f"| `{name}` |" in section, name
