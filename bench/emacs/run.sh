#!/usr/bin/env bash
# Benchmark: wharf.el's picker in a real `emacs -nw -Q` (in tmux, so redisplay is real) over a
# folder of 10,000 entries, against Emacs's own find-file completion over the same folder, in
# the same run and the same completion UI:
#   - from M-x wharf-find-file to the picker drawn, with wharf not started and already started;
#   - from a keystroke typed in the picker to the list redrawn.
# In two completion UIs: fido-vertical-mode (Emacs's own vertical one, like vertico) and the
# default minibuffer (a keystroke there only echoes; its list is shown by ?, timed as the key).
#
# Usage: bench/emacs/run.sh [ENTRIES] [RUNS]     (WHARF: the binary; default the release build)
set -eu

entries=${1:-10000}
runs=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
wharf=${WHARF:-$root/.build/release/wharf}
[ -x "$wharf" ] || wharf=$root/.build/debug/wharf
[ -x "$wharf" ] || { echo "no wharf binary (make release, or set WHARF)"; exit 1; }
command -v emacs >/dev/null || { echo "emacs is not installed (apt-get install emacs-nox)"; exit 1; }
command -v tmux >/dev/null || { echo "tmux is not installed (apt-get install tmux)"; exit 1; }

socket=wharf-bench-emacs-$$
work=$(mktemp -d /tmp/wharf-bench-emacs-XXXXXX)
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
dir="$work/entries"
mkdir -p "$dir"
(
    cd "$dir"
    seq 0 $((entries - 1)) | awk '{
        n = $1; split("txt md json pdf png c h csv", e, " ")
        if (n % 1000 == 0) print "folder" n
        else print "file" n "." e[n % 8 + 1]
    }' > "$work/names"
    grep '^folder' "$work/names" | xargs mkdir
    grep '^file' "$work/names" | xargs touch
)

# wharf.el byte-compiled, as every package manager installs it.
mkdir -p "$work/lisp"
cp "$root/clients/emacs/"*.el "$work/lisp/"
emacs --batch -Q -L "$work/lisp" -f batch-byte-compile "$work/lisp/"*.el 2>/dev/null

measure() { # measure UI KEY OUTPUT
    local setup
    case $1 in
        fido) setup="(fido-vertical-mode 1) (setq icomplete-compute-delay 0)" ;;
        default) setup="(ignore)" ;;
    esac
    tmux -L "$socket" new-session -d -x 120 -y 40 -c "$dir" \
        "emacs -nw -Q -L '$work/lisp' -l wharf -l '$root/bench/emacs/bench.el' --eval \"(progn $setup (setq wharf-program \\\"$wharf\\\" wharf-presenter 'emacs wharf-arguments (list \\\"--state-dir\\\" \\\"$work/state\\\")) (run-at-time 1 nil #'wharf-bench-run \\\"$dir\\\" \\\"$2\\\" $runs \\\"$3\\\"))\""
    local deadline=$((SECONDS + 30 * runs + 60))
    while [ ! -s "$3" ]; do
        [ $SECONDS -lt $deadline ] || { echo "no result from emacs ($1)"; tmux -L "$socket" capture-pane -p; exit 1; }
        sleep 0.2
    done
    tmux -L "$socket" kill-server 2>/dev/null || true
}

measure fido 7 "$work/fido.json"
measure default "?" "$work/default.json"

python3 - "$work/fido.json" "$work/default.json" "$entries" "$("$wharf" --version 2>&1 | head -1)" "$(emacs --version | head -1)" <<'EOF'
import json, sys
fido, default = (json.load(open(p)) for p in sys.argv[1:3])
entries, wharf, emacs = sys.argv[3], sys.argv[4], sys.argv[5]
ms = lambda f: f"{f['median'] * 1000:.1f} ms ({f['min'] * 1000:.1f}–{f['max'] * 1000:.1f})"
print(f"wharf.el (byte-compiled) in emacs -nw over {int(entries):,} entries; {wharf}; {emacs}; "
      f"median of {fido['runs']} runs (min–max); every contender interleaved in one run")
print()
print("| figure | fido-vertical-mode (key: 7) | default completion (key: ?) |")
print("| --- | --- | --- |")
rows = [("M-x wharf-find-file to the picker drawn, wharf not started", "cold_open"),
        ("M-x wharf-find-file to the picker drawn, wharf started", "warm_open"),
        ("peer: C-x C-f (find-file) to its prompt drawn", "find_file_open"),
        ("keystroke to redraw, wharf.el picker", "wharf_key"),
        ("peer: keystroke to redraw, find-file completion", "find_file_key")]
for title, key in rows:
    print(f"| {title} | {ms(fido[key])} | {ms(default[key])} |")
print()
for name, results in (("fido-vertical-mode", fido), ("default", default)):
    print(f"{name}: wharf.el picker open (started) / find-file open: "
          f"{results['warm_open']['median'] / results['find_file_open']['median']:.2f}x; "
          f"keystroke wharf.el / find-file: {results['wharf_key']['median'] / results['find_file_key']['median']:.2f}x")
EOF
