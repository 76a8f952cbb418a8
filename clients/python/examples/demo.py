#!/usr/bin/env python3
"""A real Wharf session, end to end, printed as a transcript.

Run by `make demo`. It drives wharf through the Python client (clients/python) and prints every
message that goes over the pipe, so what you see is exactly the protocol. The dialogs are
answered by Wharf's script presenter (`--presenter script:FILE`), standing in for a human.
To add a scene: a few script steps in `make_sample_folder`, a `scene(...)` line and the calls.
"""
import json
import pathlib
import sys
import tempfile
import threading

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "src"))
from wharf_client import ExportDocument, WharfClient  # noqa: E402

COLOR = sys.stdout.isatty()
_print_lock = threading.Lock()


def show(direction, message):
    """One message as it went over the pipe: → to wharf, ← from wharf."""
    arrow, color = ("→", 36) if direction == "send" else ("←", 32)
    text = json.dumps(message)
    with _print_lock:
        print(f"\033[{color}m{arrow} {text}\033[0m" if COLOR else f"{arrow} {text}", flush=True)


def scene(title):
    with _print_lock:
        print(f"\n# {title}", flush=True)


def make_sample_folder(root):
    (root / "photos").mkdir()
    (root / "photos" / "beach.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    (root / "photos" / "notes.txt").write_text("not a photo\n")
    (root / "export").mkdir()
    script = [
        {"expect": {"kind": "importer", "allowedContentTypes": ["public.image"]}},
        {"choose": ["photos/beach.png"]},
        {"expect": {"kind": "exporter", "filename": "report.txt"}},
        {"save": {"path": "export/report.txt"}},
        {"save": {"path": "export/summary.md"}},
    ]
    (root / "script.json").write_text(json.dumps(script, indent=2))
    return root / "script.json"


def main():
    wharf = sys.argv[1] if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory(prefix="wharf-demo-") as folder:
        root = pathlib.Path(folder)
        script = make_sample_folder(root)
        print(f"# Sample folder {root}, dialogs answered by {script.name}:")
        print(script.read_text())

        scene("The editor starts wharf and introduces itself")
        client = WharfClient.spawn(wharf, ["--presenter", f"script:{script}", "--state-dir", ":memory:"],
                                   app="demo-editor", traffic=show)

        scene("It asks for an image: fileImporter(allowedContentTypes: [.image])")
        [url] = client.present_importer(["public.image"]).result()

        scene("The picked URL is security-scoped: start access, read, stop access")
        lease = client.resolve_access(url)
        data, _ = client.read_file(lease.access_id, length=8)
        print(f"   (first bytes: {data!r})")
        client.release_access(lease.access_id)

        scene("It exports a text document: fileExporter(document:contentType: .plainText)")
        report = ExportDocument(["public.plain-text"], filename="report", text="Quarterly report\n")
        client.present_exporter([report], "public.plain-text").result()

        scene("And a document it writes lazily, once the human has chosen where")
        summary = ExportDocument(["net.daringfireball.markdown"], filename="summary",
                                 snapshot=lambda content_type: "# Summary\n\nWritten on demand.\n")
        client.present_exporter([summary]).result()

        scene("The editor quits")
        code = client.close()

        print(f"\nwharf exited with status {code}. The export folder now holds:")
        for path in sorted((root / "export").iterdir()):
            print(f"  {path.name}: {path.read_text()!r}")
    sys.exit(code)


if __name__ == "__main__":
    main()
