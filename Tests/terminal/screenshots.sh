#!/usr/bin/env bash
# Retakes the terminal picker's screenshots in docs/screenshots: text captures (tmux
# capture-pane) of the picker and of the save dialog, and a PNG of the picker in xterm under
# Xvfb, captured with ImageMagick's `import`.
#
#   WHARF=path/to/wharf Tests/terminal/screenshots.sh
#
# `make terminal-screenshots` runs it with the built binary. DISPLAY_NUMBER (81 by default) is the
# Xvfb display it starts. It installs what it needs from Debian when missing.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
shots="$root/docs/screenshots"
wharf="${WHARF:?set WHARF to the wharf binary}"
wharf="$(cd "$(dirname "$wharf")" && pwd)/$(basename "$wharf")"
display=":${DISPLAY_NUMBER:-81}"

need=""
command -v Xvfb >/dev/null || need="$need xvfb"
command -v xterm >/dev/null || need="$need xterm"
command -v import >/dev/null || need="$need imagemagick"
command -v tmux >/dev/null || need="$need tmux"
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || need="$need fonts-dejavu-core"
[ -e /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || need="$need fonts-noto-cjk"
if [ -n "$need" ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 $need >/dev/null
fi

work="$(mktemp -d)"
socket="$work/tmux.sock"
xvfb_pid=""; xterm_pid=""
cleanup() {
  tmux -S "$socket" kill-server 2>/dev/null || true
  [ -n "$xterm_pid" ] && kill "$xterm_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# A sample project to browse.
home="$work/home"
demo="$home/harbor"
mkdir -p "$demo/docs" "$demo/src" "$demo/assets"
printf '# Harbor\n' > "$demo/README.md"
printf 'Buy rope.\n' > "$demo/notes.txt"
printf '# Plan\n' > "$demo/plan.md"
printf 'ok\n' > "$demo/build.log"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' > "$demo/logo.png"
printf '%%PDF-1.4\n' > "$demo/manual.pdf"
printf 'memo\n' > "$demo/航海日誌.txt"
printf 'x\n' > "$demo/$(printf 'caf\377.txt')"

cols=100; rows=24
keys() { tmux -S "$socket" send-keys -t shot "$@"; sleep 0.3; }
start() {
  tmux -S "$socket" kill-server 2>/dev/null || true
  sleep 0.2
  env -i PATH="$PATH" HOME="$home" TERM=xterm-256color LANG=C.UTF-8 \
    tmux -S "$socket" -f /dev/null new-session -d -s shot -x "$cols" -y "$rows" "cd '$demo' && $1; sleep 1000"
  tmux -S "$socket" set -g status off >/dev/null
  sleep 1
}

# The save dialog: the name field, prefilled.
start "printf 'Tides\n' | '$wharf' save --presenter terminal --state-dir :memory: --name report.md --title 'Save the report'"
keys Enter
tmux -S "$socket" capture-pane -p -t shot > "$shots/terminal-save.txt"

# The picker: plain text, several; two marked, the cursor on the PNG so its reason shows.
start "'$wharf' pick --presenter terminal --state-dir :memory: --type public.plain-text --multiple --title 'Open notes'"
keys Home
keys "/" ; tmux -S "$socket" send-keys -t shot -l "notes"; sleep 0.3; keys Enter Tab
keys "/" ; tmux -S "$socket" send-keys -t shot -l "plan"; sleep 0.3; keys Enter Tab
keys "/" ; keys Escape
keys "/" ; tmux -S "$socket" send-keys -t shot -l "logo"; sleep 0.3; keys Enter
keys "/" ; keys Escape
tmux -S "$socket" capture-pane -p -t shot > "$shots/terminal-picker.txt"

Xvfb "$display" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
DISPLAY="$display" xterm -T wharf-terminal-shot -geometry "${cols}x${rows}+0+0" -fa 'DejaVu Sans Mono' -fs 11 \
  -bg black -fg '#d0d0d0' -b 0 -e env TERM=xterm-256color tmux -S "$socket" attach -t shot &
xterm_pid=$!
sleep 2
DISPLAY="$display" import -window wharf-terminal-shot "$shots/terminal-picker.png"
echo "wrote $shots/terminal-picker.png, terminal-picker.txt, terminal-save.txt"
cat "$shots/terminal-picker.txt"
