#!/bin/sh
# An interactive Vim in tmux, driven with real keys: :WharfOpen and :WharfSaveAs in the popup
# picker (g:wharf_presenter 'auto' with no desktop: Vim draws the dialog). Prints "ok …" or
# "not ok …" per check, as tests/run.sh counts them. WHARF_SCREEN=FILE keeps the picker's screen.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${WHARF:?set WHARF to the wharf binary}"
socket=${WHARF_TMUX_SOCKET:-vim}
root=$(mktemp -d)
root=$(cd "$root" && pwd -P)
session=wharf-vim-$$
mkdir -p "$root/project/notes" "$root/state"
printf 'alpha\n' > "$root/project/a.txt"
printf 'beta\n' > "$root/project/b.txt"
printf '# Plan\n' > "$root/project/plan.md"
printf '\211PNG\r\n\032\n' > "$root/project/logo.png"
printf 'x\n' > "$root/project/notes/todo.txt"
cat > "$root/vimrc" <<VIMRC
set nocompatible encoding=utf-8 laststatus=2 shortmess+=I
set runtimepath^=$here/..
runtime plugin/wharf.vim
let g:wharf_cmd = ['$WHARF', '--state-dir', '$root/state']
let g:wharf_presenter = 'auto'
VIMRC

tmux_() { tmux -L "$socket" "$@"; }
cleanup() {
  tmux_ kill-session -t "$session" 2>/dev/null
  rm -rf "$root"
}
trap cleanup EXIT

screen() { tmux_ capture-pane -p -t "$session"; }
# Waits up to 10 s for the screen to show the extended regular expression $1.
wait_for() {
  i=0
  while [ $i -lt 200 ]; do
    if screen | grep -Eq -- "$1"; then return 0; fi
    sleep 0.05
    i=$((i + 1))
  done
  return 1
}
check() { # name, pattern
  if wait_for "$2"; then
    echo "ok tmux: $1"
  else
    echo "not ok tmux: $1"
    echo "  the screen did not show /$2/:"
    screen | sed 's/^/  | /'
  fi
}
keys() { tmux_ send-keys -t "$session" "$@"; }

cd "$root/project"
tmux_ new-session -d -s "$session" -x 100 -y 30 \
  "env -u DISPLAY -u WAYLAND_DISPLAY -u DBUS_SESSION_BUS_ADDRESS vim -N -u '$root/vimrc' -i NONE"
wait_for '~' || true

keys ':WharfOpen txt md' Enter
check ':WharfOpen draws the picker' '╭ Open · Plain text, Markdown text · ….*/project ─'
check 'the folder comes first' '│ +notes/ '
if [ -n "${WHARF_SCREEN:-}" ]; then screen > "$WHARF_SCREEN"; fi
keys j j j
check 'a dimmed entry says why it cannot be chosen' 'logo.png cannot be chosen: it is of type public.png'
keys / p l
check '/ filters as you type' '/pl *$'
keys Enter Enter
check 'Enter chooses and Vim edits the file' '^# Plan'
check 'the edited file is plan.md' 'plan.md'
keys ':WharfSaveAs' Enter
check ':WharfSaveAs draws the picker' 'Save · Markdown text · .*project'
keys g Enter
check 'the name prompt holds the suggested name' 'Save as: plan.md'
keys C-u 'copy.md' Enter
check 'the file is saved and the buffer renamed' 'wharf: saved .*copy.md'
if cmp -s "$root/project/plan.md" "$root/project/copy.md"; then
  echo "ok tmux: the saved file has the buffer's bytes"
else
  echo "not ok tmux: the saved file has the buffer's bytes"
fi
keys ':WharfSaveAs' Enter
check 'Save As again' 'Save · Markdown text'
keys g Enter C-u 'a.txt' Enter
check 'Replace? for an existing file' 'a.txt already exists. Replace\? \(y/n\)'
keys n
keys q
check 'q cancels the dialog' 'copy.md'
keys ':echo "pid=" .. wharf#status().pid' Enter
wait_for 'pid=[0-9]+' || screen
pid=$(screen | sed -n 's/.*pid=\([0-9][0-9]*\).*/\1/p' | tail -1)
keys ':qa!' Enter
i=0
while [ $i -lt 100 ] && tmux_ has-session -t "$session" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && [ "$(cat "$root/project/a.txt")" = alpha ]; then
  echo "ok tmux: quitting Vim ends wharf, nothing replaced"
else
  echo "not ok tmux: quitting Vim ends wharf (pid '$pid'), nothing replaced"
fi
