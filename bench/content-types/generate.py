#!/usr/bin/env python3
"""Writes N files of varied names and contents for the content-type benchmark.

Names mix common extensions, lying extensions, no extension and literal names; contents mix
real format headers, scripts, text and binary junk, so every identification path (glob only,
ambiguous glob plus magic, magic only, text/binary fallback) is exercised in realistic
proportions: most files have an ordinary extension, as in a real home directory.
"""
import os
import random
import sys

HEADERS = {
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x01" * 17,
    "gif": b"GIF89a\x01\x00\x01\x00\x80\x00\x00",
    "jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00",
    "pdf": b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
    "zip": b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"\x00" * 20 + b"hello.txt",
    "gzip": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03KLJ\x06\x00",
    "elf": b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"\x02\x00\x3e\x00" + b"\x00" * 44,
    "text": b"Just some plain words on a line.\nAnd another line.\n" * 20,
    "script": b"#!/bin/sh\necho hello\n",
    "python": b"#!/usr/bin/env python3\nprint('hi')\n",
    "html": b"<!DOCTYPE html>\n<html><body>hi</body></html>\n",
    "json": b'{"name": "wharf", "values": [1, 2, 3]}\n',
    "junk": bytes((i * 37 + 11) % 256 for i in range(3000)),
}
MATCHING = {"png": ".png", "gif": ".gif", "jpeg": ".jpg", "pdf": ".pdf", "zip": ".zip", "gzip": ".gz",
            "elf": "", "text": ".txt", "script": ".sh", "python": ".py", "html": ".html", "json": ".json",
            "junk": ".bin"}
OTHER_NAMES = [".md", ".c", ".h", ".swift", ".js", ".css", ".csv", ".log", ".xml", ".yaml", ".mp3",
               ".doc", ".ts", ".m", ".pl", ".tar.gz", ".qqq", "", ".TXT", ".JPG"]
LITERALS = ["Makefile", "README", "COPYING", "ChangeLog", "meson.build", "CMakeLists.txt"]


def main():
    directory, count = sys.argv[1], int(sys.argv[2])
    rng = random.Random(42)
    labels = sorted(HEADERS)
    for index in range(count):
        label = rng.choice(labels)
        sub = os.path.join(directory, f"d{index % 50:02d}")
        os.makedirs(sub, exist_ok=True)
        roll = rng.random()
        if roll < 0.70:
            name = f"file{index}{MATCHING[label]}"
        elif roll < 0.95:
            name = f"file{index}{rng.choice(OTHER_NAMES)}"
        else:
            name = f"{rng.choice(LITERALS)}.{index}" if rng.random() < 0.5 else rng.choice(LITERALS)
            sub = os.path.join(sub, f"lit{index}")
            os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, name), "wb") as handle:
            handle.write(HEADERS[label])


if __name__ == "__main__":
    main()
