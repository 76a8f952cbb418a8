#!/usr/bin/env bash
# `make test-portal`: Wharf as xdg-desktop-portal's FileChooser backend, through the real
# frontend. A private home, Xvfb (for the GTK app and zenity), a private session bus
# (dbus-run-session) on which the tests start the real /usr/libexec/xdg-desktop-portal with
# XDG_DESKTOP_PORTAL_DIR pointing at packaging/wharf.portal and XDG_CURRENT_DESKTOP matching
# its UseIn=, and `wharf portal` answering with the script presenter (Tests/portal/test_portal.py),
# or with the terminal picker in the xterm it opens, a person's keys typed there with xdotool.
#
#   WHARF=.build/debug/wharf [PORTAL_TESTS=FILE] Tests/portal/run.sh [unittest arguments]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WHARF=${WHARF:-$ROOT/.build/debug/wharf}
. "$ROOT/Tests/support/session.sh"
session_begin wharf-portal
RIG=$SESSION_DIR

session_home "$RIG"
unset XDG_CURRENT_DESKTOP

# The display asks for a cookie, as a desktop session's does: every client reads it from
# $XAUTHORITY (one entry for any display: family 65535), `wharf portal --run-dialog` too.
export XAUTHORITY=$RIG/Xauthority
/usr/bin/python3 -c 'import os, struct, sys
field = lambda data: struct.pack(">H", len(data)) + data
sys.stdout.buffer.write(struct.pack(">H", 65535) + field(b"") + field(b"") + field(b"MIT-MAGIC-COOKIE-1") + field(os.urandom(16)))' > "$XAUTHORITY"
session_xvfb "$RIG" 1024x768x24 -auth "$XAUTHORITY"

# D-Bus activation through the installed service file (packaging/portal/*.service.in), its
# @BINDIR@ a folder whose `wharf` is the built one answering from $PORTAL_ACTIVATION_SCRIPT.
mkdir -p "$RIG/bin" "$XDG_DATA_HOME/dbus-1/services"
printf '#!/bin/sh\nexec "%s" "$@" --presenter "script:$PORTAL_ACTIVATION_SCRIPT" --log-level info --state-dir :memory: 2>>"$PORTAL_ACTIVATION_SCRIPT.log"\n' "$WHARF" > "$RIG/bin/wharf"
chmod +x "$RIG/bin/wharf"
sed "s|@BINDIR@|$RIG/bin|g" "$ROOT/packaging/portal/org.freedesktop.impl.portal.desktop.wharf.service.in" \
    > "$XDG_DATA_HOME/dbus-1/services/org.freedesktop.impl.portal.desktop.wharf.service"
export PORTAL_ACTIVATION_SCRIPT=$RIG/activation.json
echo '[]' > "$PORTAL_ACTIVATION_SCRIPT"

export WHARF PORTAL_FILE=$ROOT/packaging/portal/wharf.portal PORTAL_RIG=$RIG
# PORTAL_TESTS: another file of tests for the same rig (test_nvim_presenter.py: make test-portal-nvim).
dbus-run-session -- /usr/bin/python3 "$ROOT/Tests/portal/${PORTAL_TESTS:-test_portal.py}" "$@"
