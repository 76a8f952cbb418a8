#!/bin/sh
# A module imports only what its target declares in Package.swift. SwiftPM builds a target
# after every module it can reach, so an undeclared import of a module that happens to be
# built earlier compiles today and breaks the day the graph changes; and the layers the
# manifest describes (each knowing only those below) are only true if the imports keep to them.
#
# It reads the manifest as SwiftPM does (`swift package dump-package`, in a scratch directory
# of its own so it never waits for a build holding .build) and compares each target's declared
# dependencies with the `import` lines of its sources. Only imports of this package's own
# targets are checked; the system's modules (Glibc, XCTest, Testing, Synchronization) are not
# targets.
#
# Usage: Tests/lint/imports.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/wharf-imports.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
swift package --scratch-path "$scratch" dump-package > "$scratch/package.json"

python3 - "$scratch/package.json" <<'PYTHON'
import json, os, re, sys

package = json.load(open(sys.argv[1]))
targets = {target["name"]: target for target in package["targets"]}
# `import X`, `@testable import X`, `import struct X.Y`, `@_implementationOnly import X`.
pattern = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)")

def declared(target):
    names = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names

def directory(target):
    if target.get("path"):
        return target["path"]
    return os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])

def module(name):
    # An executable target named with dashes is the module with underscores.
    return name.replace("-", "_")

modules = {module(name): name for name in targets}
problems = []
for name, target in sorted(targets.items()):
    if target["type"] == "system":
        continue
    allowed = {module(dependency) for dependency in declared(target)}
    for folder, _, files in os.walk(directory(target)):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(folder, file)
            with open(path, encoding="utf-8") as source:
                for number, line in enumerate(source, 1):
                    match = pattern.match(line)
                    if not match:
                        continue
                    imported = match.group(1)
                    if imported in modules and imported != module(name) and imported not in allowed:
                        problems.append(f"{path}:{number}: {name} imports {imported}, which Package.swift does not declare")
for problem in problems:
    print(problem)
if problems:
    print("lint: add the module to the target's dependencies in Package.swift, or drop the import", file=sys.stderr)
    sys.exit(1)
PYTHON
