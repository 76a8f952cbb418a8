#!/usr/bin/env bash
# Regenerates docs/picker.png: Neovim in tmux, the picker drawn over a sample folder with two
# files marked, shown by xterm under Xvfb and captured with ImageMagick's `import` (the rig is
# Tests/support/screenshot.sh).
#
#   WHARF=path/to/wharf NVIM=path/to/nvim [SHOT_DISPLAY=:N] clients/nvim/docs/screenshot.sh [OUT.png]
#
# `make nvim-screenshot` runs it with the built binary and the test suite's Neovim. Xvfb runs on
# SHOT_DISPLAY when it is set, else on a display it finds free. It installs what it needs from
# Debian (Xvfb, xterm, ImageMagick, tmux, a monospace font) when missing.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
root="$(cd "$plugin/../.." && pwd)"
out="${1:-$here/picker.png}"
wharf="${WHARF:?set WHARF to the wharf binary}"
nvim="${NVIM:-nvim}"
wharf="$(cd "$(dirname "$wharf")" && pwd)/$(basename "$wharf")"
nvim="$(command -v "$nvim")"
. "$root/Tests/support/screenshot.sh"

shot_install
shot_begin
shot_harbor
# Beside the sample folder's files: one large enough to show a size in K, and the source
# Neovim has open.
head -c 48000 /dev/zero > "$SHOT_HARBOR/tides.csv"
cp "$plugin/lua/wharf/init.lua" "$SHOT_HARBOR/src/wharf.lua"
touch -d '2026-05-04 09:30' "$SHOT_HARBOR"/* 2>/dev/null || true

cat > "$SHOT_WORK/init.lua" <<LUA
vim.opt.rtp:prepend('$plugin')
vim.o.termguicolors = true
vim.o.number = true
vim.o.wrap = false
vim.o.laststatus = 2
vim.o.showmode = false
require('wharf').setup({ cmd = { '$wharf', '--state-dir', ':memory:' }, presenter = 'nvim',
  window = { width = 0.62, height = 0.55 } })
LUA

shot_session "$SHOT_HARBOR" 104 30 "'$nvim' --clean -u '$SHOT_WORK/init.lua' src/wharf.lua"
shot_keys ":lua require('wharf').import({ types = { 'public.text' }, multiple = true, default_directory = '$SHOT_HARBOR' }, function() end)" Enter
sleep 1.2
# Mark notes.txt and plan.md (lines 8 and 9: the » line, 3 folders, build.log, logo.png and
# manual.pdf come first); <Tab> moves down, so the cursor ends on README.md.
shot_keys 8G Tab
shot_keys Tab
sleep 0.2
shot_screen > "$SHOT_WORK/screen.txt"

shot_capture "$out"
echo "wrote $out"
cat "$SHOT_WORK/screen.txt"
