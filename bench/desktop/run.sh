#!/usr/bin/env bash
# Wharf's own cost in front of the desktop portal: from a presentImporter written to the wharf
# binary's standard input (the release build) to the OpenFile call it makes on the session
# bus, seen by dbus-monitor, beside a direct sd-bus OpenFile from one process, in the desktop
# rig (Xvfb, a private session bus, the real xdg-desktop-portal-gtk). See Tests/desktop/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
wharf=${WHARF:-$PWD/.build/release/wharf}
[ -x "$wharf" ] || make release >&2
WHARF="$wharf" Tests/desktop/rig.sh measure 2>&1 | grep -E '^(measure:|\|)'
