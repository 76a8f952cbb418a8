#!/usr/bin/env bash
# Regenerates docs/serve-desktop.png: an app's OpenFile through the real xdg-desktop-portal,
# answered by `wharf portal`, drawn by a Neovim that ran :WharfServeDesktop (in tmux, shown by
# xterm under Xvfb and captured with ImageMagick's `import`). Everything runs on a private
# session bus, with a private home and XDG_RUNTIME_DIR.
#
#   WHARF=path/to/wharf NVIM=path/to/nvim [SHOT_DISPLAY=:N] clients/nvim/docs/serve-screenshot.sh [OUT.png]
#
# `make nvim-serve-screenshot` runs it with the built binary and the test suite's Neovim. It
# needs what `make test-portal` installs, and tmux, ImageMagick and a monospace font.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
root="$(cd "$plugin/../.." && pwd)"
out="${1:-$here/serve-desktop.png}"
wharf="${WHARF:?set WHARF to the wharf binary}"
nvim="${NVIM:-nvim}"
wharf="$(cd "$(dirname "$wharf")" && pwd)/$(basename "$wharf")"
nvim="$(command -v "$nvim")"
display="${SHOT_DISPLAY:-:$(( 90 + RANDOM % 400 ))}"

work="$(mktemp -d)"
pids=()
cleanup() {
  tmux -S "$work/tmux.sock" kill-server 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  # The document portal the frontend starts mounts $XDG_RUNTIME_DIR/doc.
  for _ in $(seq 50); do
    fusermount -u "$work/run/doc" 2>/dev/null || true
    rm -rf "$work" 2>/dev/null && break
    sleep 0.1
  done
}
trap cleanup EXIT

# A sample project as the home folder: Debian 12's frontend does not pass OpenFile's
# current_folder on, so the dialog opens at home.
home="$work/home"
mkdir -p "$home/charts" "$home/drafts" "$home/.config"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' > "$home/tides.png"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' > "$home/harbor-map.png"
printf '\xff\xd8\xff\xe0\0\x10JFIF' > "$home/hull.jpg"
printf 'Buy rope.\n' > "$home/notes.txt"
printf '%%PDF-1.4\n' > "$home/manual.pdf"
touch -d '2026-05-04 09:30' "$home"/* 2>/dev/null || true
mkdir -p "$work/run" "$work/portals"
chmod 700 "$work/run"
cp "$root/packaging/portal/wharf.portal" "$work/portals/"

export HOME="$home" XDG_RUNTIME_DIR="$work/run" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
export XDG_CACHE_HOME="$work/cache" LANG=C.UTF-8 GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
unset WAYLAND_DISPLAY SESSION_MANAGER GTK_USE_PORTAL

Xvfb "$display" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
export DISPLAY="$display"

bus="$(dbus-daemon --session --print-address --fork --print-pid)"
export DBUS_SESSION_BUS_ADDRESS="${bus%%$'\n'*}"
pids+=("${bus##*$'\n'}")

"$wharf" --listen --state-dir :memory: 2>"$work/daemon.log" &
pids+=($!)
for _ in $(seq 100); do [ -S "$work/run/wharf/wharf.sock" ] && break; sleep 0.1; done
"$wharf" portal --presenter auto --state-dir :memory: --log-level info 2>"$work/portal.log" &
pids+=($!)
gdbus wait --session --timeout 10 org.freedesktop.impl.portal.desktop.wharf
XDG_DESKTOP_PORTAL_DIR="$work/portals" XDG_CURRENT_DESKTOP=wharf /usr/libexec/xdg-desktop-portal --replace --verbose \
  >"$work/frontend.log" 2>&1 &
pids+=($!)

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

cols=104; rows=30
env -i PATH="$PATH" HOME="$home" XDG_RUNTIME_DIR="$work/run" TERM=xterm-256color LANG=C.UTF-8 \
  tmux -S "$work/tmux.sock" -f /dev/null new-session -d -s shot -x "$cols" -y "$rows" \
  "cd '$work' && '$nvim' --clean -u '$work/init.lua' tides.md"
tmux -S "$work/tmux.sock" set -g status off
tmux -S "$work/tmux.sock" set -ga terminal-overrides ',xterm*:Tc'
sleep 2

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
pids+=($!)
for _ in $(seq 400); do
  tmux -S "$work/tmux.sock" capture-pane -p -t shot | grep -q '(portal)' && break
  sleep 0.1
done
sleep 0.5
tmux -S "$work/tmux.sock" send-keys -t shot j j
sleep 0.5
tmux -S "$work/tmux.sock" capture-pane -p -t shot > "$work/screen.txt"

xterm -T wharf-serve-shot -geometry "${cols}x${rows}+0+0" -fa 'DejaVu Sans Mono' -fs 11 \
  -bg black -fg '#d0d0d0' -b 0 -xrm 'XTerm*directColor: true' \
  -e env TERM=xterm-256color tmux -S "$work/tmux.sock" attach -t shot &
pids+=($!)
sleep 2
import -window wharf-serve-shot "$out"
echo "wrote $out"
cat "$work/screen.txt"
if [ -n "${SHOT_DEBUG:-}" ]; then for f in "$work"/*.log "$home"/.local/state/nvim/wharf.log; do echo "== $f"; tail -n 5 "$f"; done; fi
