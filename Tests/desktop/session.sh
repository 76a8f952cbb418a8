#!/usr/bin/env bash
# One rig session: a private home, Xvfb on a display it picks itself, openbox (title bars and
# focus, like a desktop), then a private session bus (dbus-run-session) on which D-Bus
# activation starts the real xdg-desktop-portal and xdg-desktop-portal-gtk, and inside.sh.
#
# Environment for everything below (and so for the portal, which the bus activates with the
# bus's environment):
#   HOME, XDG_{RUNTIME,CONFIG,DATA,CACHE}_DIR  private, under one temporary directory
#   DISPLAY                                    the Xvfb display
#   XDG_CURRENT_DESKTOP=GNOME                  xdg-desktop-portal 1.16 picks the backend whose
#                                              UseIn= matches (gtk.portal says gnome)
#   $XDG_CONFIG_HOME/xdg-desktop-portal/portals.conf  default=gtk, the same for portal >= 1.17
#   GSETTINGS_BACKEND=memory                   GTK's file chooser settings start fresh
#   NO_AT_BRIDGE=1 GTK_A11Y=none               no accessibility bus to wait on
#   $XDG_CONFIG_HOME/gtk-3.0/settings.ini      no cursor blinking or animations, so that a
#                                              window at rest looks still (the rig waits for that)
set -euo pipefail
MODE=${1:-test}
ROOT=$(pwd)
. "$ROOT/Tests/support/session.sh"
session_begin wharf-desktop
RIG=$SESSION_DIR

session_home "$RIG"
mkdir -p "$XDG_CONFIG_HOME/xdg-desktop-portal"
printf '[preferred]\ndefault=gtk\n' > "$XDG_CONFIG_HOME/xdg-desktop-portal/portals.conf"
# A window at rest must look still (the rig waits for stillness): no blinking cursor, no animations.
mkdir -p "$XDG_CONFIG_HOME/gtk-3.0"
printf '[Settings]\ngtk-cursor-blink=false\ngtk-enable-animations=false\n' > "$XDG_CONFIG_HOME/gtk-3.0/settings.ini"
export XDG_CURRENT_DESKTOP=GNOME

session_xvfb "$RIG" 1400x900x24

openbox --sm-disable >"$RIG/openbox.log" 2>&1 &
session_started $!
for _ in $(seq 600); do
    xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id" && break
    sleep 0.05
done
xprop -root _NET_SUPPORTING_WM_CHECK | grep -q "window id" || { echo "rig: openbox did not start"; exit 1; }

echo "rig: Xvfb on $DISPLAY, openbox, private session bus; mode $MODE"
dbus-run-session -- "$ROOT/Tests/desktop/inside.sh" "$MODE" 2> >(grep -v -E "RealtimeKit|PipeWire|pw.conf|Failed to associate portal window|Unhandled parent window|max threads|AccessDenied: Failed to set fd limit|^$" >&2)
