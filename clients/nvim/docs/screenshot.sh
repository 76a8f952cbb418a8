#!/usr/bin/env bash
# Regenerates docs/picker.png: Neovim in tmux, the picker drawn over a sample folder with two
# files marked, shown by xterm under Xvfb and captured with ImageMagick's `import`.
#
#   WHARF=path/to/wharf NVIM=path/to/nvim clients/nvim/docs/screenshot.sh [OUT.png]
#
# `make nvim-screenshot` runs it with the built binary and the test suite's Neovim. It installs
# what it needs from Debian (Xvfb, xterm, ImageMagick, tmux, a monospace font) when missing.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
out="${1:-$here/picker.png}"
wharf="${WHARF:?set WHARF to the wharf binary}"
nvim="${NVIM:-nvim}"
wharf="$(cd "$(dirname "$wharf")" && pwd)/$(basename "$wharf")"
nvim="$(command -v "$nvim")"

need=""
command -v Xvfb >/dev/null || need="$need xvfb"
command -v xterm >/dev/null || need="$need xterm"
command -v import >/dev/null || need="$need imagemagick"
command -v tmux >/dev/null || need="$need tmux"
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || need="$need fonts-dejavu-core"
if [ -n "$need" ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need >/dev/null
fi

work="$(mktemp -d)"
socket="$work/tmux.sock"
display=":$(( 90 + RANDOM % 400 ))"
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
mkdir -p "$demo/docs" "$demo/src" "$demo/assets" "$home/.config"
printf '# Harbor\n' > "$demo/README.md"
printf 'Buy rope.\nPaint the hull.\n' > "$demo/notes.txt"
printf '# Plan\n' > "$demo/plan.md"
printf 'ok\n' > "$demo/build.log"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' > "$demo/logo.png"
printf '%%PDF-1.4\n' > "$demo/manual.pdf"
head -c 48000 /dev/zero > "$demo/tides.csv"
cp "$plugin/lua/wharf/init.lua" "$demo/src/wharf.lua"
touch -d '2026-05-04 09:30' "$demo"/* 2>/dev/null || true

cat > "$work/init.lua" <<EOF
vim.opt.rtp:prepend('$plugin')
vim.o.termguicolors = true
vim.o.number = true
vim.o.wrap = false
vim.o.laststatus = 2
vim.o.showmode = false
require('wharf').setup({ cmd = { '$wharf', '--state-dir', ':memory:' }, presenter = 'nvim',
  window = { width = 0.62, height = 0.55 } })
EOF

Xvfb "$display" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done

cols=104; rows=30
env -i PATH="$PATH" HOME="$home" TERM=xterm-256color LANG=C.UTF-8 \
  tmux -S "$socket" -f /dev/null new-session -d -s shot -x "$cols" -y "$rows" \
  "cd '$demo' && '$nvim' --clean -u '$work/init.lua' src/wharf.lua"
tmux -S "$socket" set -g status off
tmux -S "$socket" set -ga terminal-overrides ',xterm*:Tc'
sleep 1
tmux -S "$socket" send-keys -t shot ":lua require('wharf').import({ types = { 'public.text' }, multiple = true, default_directory = '$demo' }, function() end)" Enter
sleep 1.5
# Mark notes.txt and plan.md (lines 8 and 9: the » line, 3 folders, build.log, logo.png and
# manual.pdf come first); <Tab> moves down, so the cursor ends on README.md.
tmux -S "$socket" send-keys -t shot 8G Tab
sleep 0.3
tmux -S "$socket" send-keys -t shot Tab
sleep 0.5
tmux -S "$socket" capture-pane -p -t shot > "$work/screen.txt"

DISPLAY="$display" xterm -T wharf-shot -geometry "${cols}x${rows}+0+0" -fa 'DejaVu Sans Mono' -fs 11 \
  -bg black -fg '#d0d0d0' -b 0 -xrm 'XTerm*directColor: true' \
  -e env TERM=xterm-256color tmux -S "$socket" attach -t shot &
xterm_pid=$!
sleep 2
DISPLAY="$display" import -window wharf-shot "$out"
echo "wrote $out"
cat "$work/screen.txt"
