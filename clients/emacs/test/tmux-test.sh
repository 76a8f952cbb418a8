#!/usr/bin/env bash
# An interactive `emacs -nw -Q` with wharf.el, driven with real keys in tmux against the real
# wharf: M-x wharf-find-file (a pick, a refused pick with its reason shown, going into a
# folder), C-x C-f served by wharf-read-file-name-mode, M-x wharf-write-file, M-x
# wharf-move-file into a folder holding the name (Keep both), and C-x C-c ending wharf with
# Emacs.
#
# Usage: WHARF=.build/debug/wharf clients/emacs/test/tmux-test.sh
# WHARF_TMUX_SOCKET names the tmux server's socket (default: emacs).
set -eu

root=$(cd "$(dirname "$0")/../../.." && pwd)
wharf=$(cd "$(dirname "${WHARF:?set WHARF to the built wharf}")" && pwd)/$(basename "$WHARF")
socket=${WHARF_TMUX_SOCKET:-emacs}
session=wharf-el-$$
work=$(mktemp -d /tmp/wharf-el-tmux-XXXXXX)
tmux_() { tmux -L "$socket" "$@"; }
cleanup() {
    tmux_ kill-session -t "$session" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/docs/sub" "$work/out" "$work/archive"
echo "older saved" > "$work/archive/saved.txt"
echo "alpha content" > "$work/docs/alpha.txt"
echo "beta content" > "$work/docs/beta.md"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' > "$work/docs/pic.png"
echo "inner content" > "$work/docs/sub/inner.txt"

fail() {
    echo "FAIL: $*" >&2
    echo "--- screen ---" >&2
    tmux_ capture-pane -p -t "$session" >&2 || true
    exit 1
}
screen() { tmux_ capture-pane -p -t "$session"; }
# wait_for REGEX [SECONDS]: until the screen shows REGEX.
wait_for() {
    local deadline=$((SECONDS + ${2:-10}))
    until screen | grep -qE -- "$1"; do
        [ $SECONDS -lt $deadline ] || fail "the screen never showed: $1"
        sleep 0.1
    done
}
keys() { tmux_ send-keys -t "$session" "$@"; }
step() { echo "ok - $*"; }

tmux_ new-session -d -s "$session" -x 100 -y 30 -c "$work/docs" \
    "emacs -nw -Q -L '$root/clients/emacs' -l wharf --eval \"(setq wharf-program \\\"$wharf\\\" wharf-arguments (list \\\"--state-dir\\\" \\\"$work/state\\\") wharf-presenter 'emacs)\""
wait_for 'scratch'

# M-x wharf-find-file: the folder listed folders first, `..' to go up; a pick opens the file.
keys M-x
wait_for '^M-x'
keys wharf-find-file Enter
wait_for '^Open \(.*/docs/\):'
keys Tab Tab
wait_for 'Possible completions'
screen | grep -qE '\.\./ +parent folder' || fail "no ../ entry"
screen | grep -qE 'sub/' || fail "no sub/ entry"
keys al Tab Enter
wait_for 'alpha\.txt +All'
wait_for '^alpha content'
step "M-x wharf-find-file opens the file picked"

# C-u M-x wharf-find-file for plain text: the PNG is shown with its reason and refused.
keys C-u M-x
wait_for '^C-u M-x'
keys wharf-find-file Enter
wait_for '^Content types'
keys public.plain-text Enter
wait_for '^Open \(.*/docs/\):'
keys Tab Tab
wait_for 'pic\.png +it is of type public\.png, and this dialog takes only public\.plain-text'
keys pic.png Enter
wait_for '^pic\.png cannot be chosen: it is of type public\.png'
wait_for '^Open \(.*/docs/\):'
keys sub/ Enter
wait_for '^Open \(.*/docs/sub/\):'
keys inner.txt Enter
wait_for 'inner\.txt +All'
wait_for '^inner content'
step "a PNG is refused with its reason in a plain-text dialog, and a folder is entered"

# wharf-read-file-name-mode: C-x C-f asks through Wharf; C-g cancels; turning it off restores.
keys M-x
wait_for '^M-x'
keys wharf-read-file-name-mode Enter
wait_for 'Wharf-Read-File-Name mode enabled'
keys C-x C-f
wait_for '^Find file \(.*/docs/sub/\):'
keys C-g
wait_for '^Quit'
keys C-x C-f
wait_for '^Find file \(.*/docs/sub/\):'
keys ../ Enter
wait_for '^Find file \(.*/docs/\):'
keys beta.md Enter
wait_for 'beta\.md +All'
wait_for '^beta content'
step "C-x C-f is served by wharf-read-file-name-mode"
keys M-x
wait_for '^M-x'
keys wharf-read-file-name-mode Enter
wait_for 'Wharf-Read-File-Name mode disabled'
keys C-x C-f
wait_for '^Find file: .*/docs/'
keys C-g
step "turning the mode off gives C-x C-f back"

# A dialog that ends on the app's side (its timeoutMs) takes its picker down.
keys M-:
wait_for '^Eval:'
keys "(wharf-import nil :timeout-ms 1500 :callback (lambda (r) (with-temp-file \"$work/ended\" (insert (format \"%s %s\" (plist-get r :status) (plist-get r :reason))))))" Enter
wait_for '^Open \('
deadline=$((SECONDS + 10))
until [ -s "$work/ended" ]; do [ $SECONDS -lt $deadline ] || fail "the dialog never ended"; sleep 0.1; done
[ "$(cat "$work/ended")" = "cancelled timeout" ] || fail "the dialog ended: $(cat "$work/ended")"
sleep 0.5
screen | grep -qE '^Open \(' && fail "the picker stayed up after its dialog ended"
step "a dialog ended by its timeout takes its picker down"

# wharf dying with the picker open: the dialog fails, its picker goes, and the next starts anew.
keys M-x
wait_for '^M-x'
keys wharf-find-file Enter
wait_for '^Open \('
pid=$(pgrep -f -- "wharf --state-dir $work/state") || fail "no wharf to kill"
kill -KILL $pid
wait_for 'wharf: wharf exited'
sleep 0.3
screen | grep -qE '^Open \(' && fail "the picker stayed up after wharf died"
step "wharf dying mid-dialog fails the dialog and takes its picker down"

# M-x wharf-write-file: the suggested name prefilled; the buffer visits the file written.
keys C-x b draft Enter
wait_for 'draft +All'
keys "draft text"
keys M-x
wait_for '^M-x'
keys wharf-write-file Enter
wait_for '^Save as \(.*/docs/\): draft'
keys C-a C-k ../ Enter
wait_for '^Save as \(.*/wharf-el-tmux-[^/]*/\): draft'
keys C-a C-k out/ Enter
wait_for '^Save as \(.*/out/\): draft'
keys C-a C-k saved.txt Enter
wait_for 'saved\.txt +All'
[ "$(cat "$work/out/saved.txt")" = "draft text" ] || fail "saved.txt holds: $(cat "$work/out/saved.txt" 2>&1)"
step "M-x wharf-write-file saves the buffer and visits the file"

# M-x wharf-move-file: the file saved above (Wharf gave it) into archive/, which holds its name:
# asked, Keep both; the buffer follows the file to its new name.
keys M-x
wait_for '^M-x'
keys wharf-move-file Enter
wait_for '^Move saved\.txt to \(.*/out/\):'
keys ../ Enter
wait_for '^Move saved\.txt to \(.*/wharf-el-tmux-[^/]*/\):'
keys archive/ Enter
wait_for '^Move saved\.txt to \(.*/archive/\):'
keys ./ Enter
wait_for 'saved\.txt is already in .*/archive/\..*keep both'
keys k
wait_for 'saved 2\.txt +All'
wait_for 'Moved to .*/archive/saved 2\.txt'
[ "$(cat "$work/archive/saved 2.txt")" = "draft text" ] || fail "saved 2.txt holds: $(cat "$work/archive/saved 2.txt" 2>&1)"
[ "$(cat "$work/archive/saved.txt")" = "older saved" ] || fail "the older saved.txt was changed"
[ ! -e "$work/out/saved.txt" ] || fail "out/saved.txt is still there"
keys " more"
keys C-x C-s
wait_for 'Wrote .*/archive/saved 2\.txt'
[ "$(cat "$work/archive/saved 2.txt")" = "draft text more" ] || fail "C-x C-s wrote: $(cat "$work/archive/saved 2.txt" 2>&1)"
step "M-x wharf-move-file asks about a name taken, keeps both, and the buffer follows the file"

# C-x C-c: Emacs ends, and its wharf with it.
pgrep -f -- "wharf --state-dir $work/state" >/dev/null || fail "no wharf running before C-x C-c"
keys C-x C-c
deadline=$((SECONDS + 10))
while tmux_ has-session -t "$session" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "emacs did not exit"
    sleep 0.1
done
deadline=$((SECONDS + 5))
while pgrep -f -- "wharf --state-dir $work/state" >/dev/null; do
    [ $SECONDS -lt $deadline ] || { echo "FAIL: wharf outlived emacs" >&2; exit 1; }
    sleep 0.1
done
step "C-x C-c ends wharf with Emacs"
echo "all tmux tests passed"
