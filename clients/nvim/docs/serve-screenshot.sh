#!/usr/bin/env bash
# Regenerates docs/serve-desktop.png: an app's OpenFile through the real xdg-desktop-portal,
# answered by `wharf portal`, drawn by a Neovim that ran :WharfServeDesktop (in tmux, shown by
# xterm under Xvfb and captured with ImageMagick's `import`: the rig is
# Tests/support/screenshot.sh). Everything runs on a private session bus, with a private home
# and XDG_RUNTIME_DIR (Tests/support/session.sh).
#
#   WHARF=path/to/wharf NVIM=path/to/nvim [SHOT_DISPLAY=:N] clients/nvim/docs/serve-screenshot.sh [OUT.png]
#
# `make nvim-serve-screenshot` runs it with the built binary and the test suite's Neovim. It
# needs what `make test-portal` installs, and tmux, ImageMagick and a monospace font. Xvfb runs
# on SHOT_DISPLAY when it is set, else on a display it finds free.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
root="$(cd "$plugin/../.." && pwd)"
out="${1:-$here/serve-desktop.png}"
wharf="${WHARF:?set WHARF to the wharf binary}"
nvim="${NVIM:-nvim}"
wharf="$(cd "$(dirname "$wharf")" && pwd)/$(basename "$wharf")"
nvim="$(command -v "$nvim")"
. "$root/Tests/support/screenshot.sh"

shot_begin
work="$SHOT_WORK"
# A sample project as the home folder: Debian 12's frontend does not pass OpenFile's
# current_folder on, so the dialog opens at home.
home="$SHOT_HOME"
mkdir -p "$home/charts" "$home/drafts"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' > "$home/tides.png"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' > "$home/harbor-map.png"
printf '\xff\xd8\xff\xe0\0\x10JFIF' > "$home/hull.jpg"
printf 'Buy rope.\n' > "$home/notes.txt"
printf '%%PDF-1.4\n' > "$home/manual.pdf"
touch -d '2026-05-04 09:30' "$home"/* 2>/dev/null || true
mkdir -p "$work/portals"
cp "$root/packaging/portal/wharf.portal" "$work/portals/"

session_home "$work"
shot_display
export DISPLAY="$SHOT_DISPLAY"

bus="$(dbus-daemon --session --print-address --fork --print-pid)"
export DBUS_SESSION_BUS_ADDRESS="${bus%%$'\n'*}"
session_started "${bus##*$'\n'}"

"$wharf" --listen --state-dir :memory: 2>"$work/daemon.log" &
session_started $!
for _ in $(seq 100); do [ -S "$XDG_RUNTIME_DIR/wharf/wharf.sock" ] && break; sleep 0.1; done
"$wharf" portal --presenter auto --state-dir :memory: --log-level info 2>"$work/portal.log" &
session_started $!
gdbus wait --session --timeout 10 org.freedesktop.impl.portal.desktop.wharf
XDG_DESKTOP_PORTAL_DIR="$work/portals" XDG_CURRENT_DESKTOP=wharf /usr/libexec/xdg-desktop-portal --replace --verbose \
  >"$work/frontend.log" 2>&1 &
session_started $!

cat > "$work/init.lua" <<EOF
vim.opt.rtp:prepend('$plugin')
vim.o.termguicolors = true
vim.o.number = true
vim.o.laststatus = 2
vim.o.showmode = false
require('wharf').setup({ cmd = { '$wharf', '--state-dir', ':memory:' }, window = { width = 0.85, height = 0.55 } })
require('wharf.serve').start()
EOF
printf 'Tide tables for the harbor.\n\nMorning high water: 06:12\nEvening high water: 18:40\n' > "$work/tides.md"

shot_session "$work" 104 30 "XDG_RUNTIME_DIR='$XDG_RUNTIME_DIR' '$nvim' --clean -u '$work/init.lua' tides.md"
sleep 1

gdbus wait --session --timeout 10 org.freedesktop.portal.Desktop
# The app: a program asking the portal for an image, staying on the bus while the dialog is
# open (the frontend ends a dialog whose app has left).
/usr/bin/python3 - >"$work/call.log" 2>&1 <<'PY' &
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
filters = GLib.Variant("a(sa(us))", [("Images", [(1, "image/png"), (1, "image/jpeg")])])
bus.call_sync("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop", "org.freedesktop.portal.FileChooser",
              "OpenFile", GLib.Variant("(ssa{sv})", ("", "Attach a chart", {"accept_label": GLib.Variant("s", "_Attach"),
                                                                         "filters": filters})),
              None, 0, 10000, None)
GLib.timeout_add_seconds(60, GLib.MainLoop.quit, loop := GLib.MainLoop())
loop.run()
PY
session_started $!
for _ in $(seq 400); do
  shot_screen | grep -q '(portal)' && break
  sleep 0.1
done
sleep 0.5
shot_keys j j
sleep 0.2
shot_screen > "$work/screen.txt"

shot_capture "$out"
echo "wrote $out"
cat "$work/screen.txt"
if [ -n "${SHOT_DEBUG:-}" ]; then for f in "$work"/*.log "$home"/.local/state/nvim/wharf.log; do echo "== $f"; tail -n 5 "$f"; done; fi
