#!/usr/bin/env bash
# Retakes the terminal picker's screenshots in docs/screenshots: text captures (tmux
# capture-pane) of the picker and of the save dialog, and a PNG of the picker in xterm under
# Xvfb, captured with ImageMagick's `import` (the rig is Tests/support/screenshot.sh).
#
#   WHARF=path/to/wharf [SHOT_DISPLAY=:N] Tests/terminal/screenshots.sh
#
# `make terminal-screenshots` runs it with the built binary. Xvfb runs on SHOT_DISPLAY when it
# is set, else on a display it finds free. It installs what it needs from Debian when missing.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
shots="$root/docs/screenshots"
wharf="${WHARF:?set WHARF to the wharf binary}"
wharf="$(cd "$(dirname "$wharf")" && pwd)/$(basename "$wharf")"
. "$root/Tests/support/screenshot.sh"

# A CJK font: the sample folder has a CJK name, to show it aligned.
shot_install fonts-noto-cjk
shot_begin
shot_harbor
# Beside the sample folder's files: a CJK name, and a name that is not UTF-8 (shown escaped).
printf 'memo\n' > "$SHOT_HARBOR/航海日誌.txt"
printf 'x\n' > "$SHOT_HARBOR/$(printf 'caf\377.txt')"

cols=100; rows=24
# The save dialog: the name field, prefilled.
shot_session "$SHOT_HARBOR" "$cols" "$rows" "printf 'Tides\n' | '$wharf' save --presenter terminal --state-dir :memory: --name report.md --title 'Save the report'; sleep 1000"
shot_keys Enter
shot_screen > "$shots/terminal-save.txt"

# The picker: plain text, several; two marked, the cursor on the PNG so its reason shows.
shot_session "$SHOT_HARBOR" "$cols" "$rows" "'$wharf' pick --presenter terminal --state-dir :memory: --type public.plain-text --multiple --title 'Open notes'; sleep 1000"
shot_keys Home
shot_keys "/"; shot_text "notes"; shot_keys Enter Tab
shot_keys "/"; shot_text "plan"; shot_keys Enter Tab
shot_keys "/"; shot_keys Escape
shot_keys "/"; shot_text "logo"; shot_keys Enter
shot_keys "/"; shot_keys Escape
shot_screen > "$shots/terminal-picker.txt"

shot_capture "$shots/terminal-picker.png"
echo "wrote $shots/terminal-picker.png, terminal-picker.txt, terminal-save.txt"
cat "$shots/terminal-picker.txt"
