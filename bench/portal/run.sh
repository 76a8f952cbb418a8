#!/usr/bin/env bash
# wharf portal: what Wharf adds between a FileChooser call and the presenter being asked, and
# between the presenter's answer and the call's reply; its idle memory; 100 OpenFile calls at
# once through the real xdg-desktop-portal (bench/portal/measure.py). Then, under Xvfb, the time
# from an app's OpenFile to the first window: xdg-desktop-portal-gtk's (the peer) beside the
# xterm and the terminal picker's first frame, and zenity's, that `wharf portal` opens
# (bench/portal/first_window.py). Each on a private session bus (dbus-run-session), with the
# release build.
set -euo pipefail
cd "$(dirname "$0")/../.."
wharf=${WHARF:-$PWD/.build/release/wharf}
[ -x "$wharf" ] || make release >&2
scratch=$(mktemp -d /tmp/wharf-portal-bench-XXXXXX)
xvfb=""
# The document portal the frontend starts mounts $XDG_RUNTIME_DIR/doc until it notices the bus
# is gone.
# Under `set -e` a failing command ends the trap, and the script, with its status: the mount
# is often gone already, so each step may fail.
cleanup() {
    if [ -n "$xvfb" ]; then kill "$xvfb" 2>/dev/null || true; fi
    for _ in $(seq 50); do
        fusermount -u "$scratch/run/doc" 2>/dev/null || true
        rm -rf "$scratch" 2>/dev/null && break
        sleep 0.1
    done
}
trap cleanup EXIT
mkdir -p "$scratch/bin" "$scratch/run"
chmod 700 "$scratch/run"
# Static: the loader would add its own start-up to what is measured as Wharf asking.
cc -O2 -static -o "$scratch/bin/zenity" bench/portal/fake-zenity.c
mkdir -p "$scratch/terminal"
cc -O2 -static -o "$scratch/terminal/xterm" bench/portal/fake-xterm.c
export XDG_RUNTIME_DIR=$scratch/run HOME=$scratch WHARF=$wharf PORTAL_BENCH=$scratch
export GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 GTK_A11Y=none LANG=C.UTF-8
unset DBUS_SESSION_BUS_ADDRESS WAYLAND_DISPLAY GTK_USE_PORTAL XDG_CURRENT_DESKTOP

# A display of its own (the first free one), with no window manager.
mkfifo "$scratch/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset 3>"$scratch/display" >/dev/null 2>&1 &
xvfb=$!
read -r -t 60 number < "$scratch/display"
export DISPLAY=:$number

PATH="$scratch/bin:$PATH" dbus-run-session -- /usr/bin/python3 bench/portal/measure.py 2> >(grep -v -e 'fd limit' >&2)
dbus-run-session -- /usr/bin/python3 bench/portal/first_window.py 2> >(grep -v -e 'fd limit' -e 'Ignoring invalid max threads' >&2)
