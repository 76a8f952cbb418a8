#!/usr/bin/env bash
# wharf portal: what Wharf adds between a FileChooser call and the presenter being asked, and
# between the presenter's answer and the call's reply; its idle memory; 100 OpenFile calls at
# once through the real xdg-desktop-portal. On a private session bus (dbus-run-session), with
# the release build. See bench/portal/measure.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
wharf=${WHARF:-$PWD/.build/release/wharf}
[ -x "$wharf" ] || make release >&2
scratch=$(mktemp -d /tmp/wharf-portal-bench-XXXXXX)
# The document portal the frontend starts mounts $XDG_RUNTIME_DIR/doc until it notices the bus
# is gone.
trap 'for _ in $(seq 50); do fusermount -u "$scratch/run/doc" 2>/dev/null; rm -rf "$scratch" 2>/dev/null && break; sleep 0.1; done' EXIT
mkdir -p "$scratch/bin" "$scratch/run"
chmod 700 "$scratch/run"
# Static: the loader would add its own start-up to what is measured as Wharf asking.
cc -O2 -static -o "$scratch/bin/zenity" bench/portal/fake-zenity.c
export XDG_RUNTIME_DIR=$scratch/run HOME=$scratch DISPLAY=${DISPLAY:-:0} WHARF=$wharf PORTAL_BENCH=$scratch
unset DBUS_SESSION_BUS_ADDRESS
PATH="$scratch/bin:$PATH" dbus-run-session -- /usr/bin/python3 bench/portal/measure.py 2> >(grep -v -e 'fd limit' >&2)
