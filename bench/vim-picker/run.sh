#!/usr/bin/env bash
# The Vim client's speed (issue 39): :WharfOpen to the popup picker drawn, with wharf not yet
# started and already started, over a small folder and a 10,000-entry one; a keystroke to the
# screen redrawn over the 10,000 entries (all pages loaded); and the peer in the same run, Vim's
# own :e with 'wildmenu' listing the same folders. Times are taken inside an interactive Vim in
# tmux (a real terminal: each figure ends with :redraw), medians of 7 runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in vim tmux; do
  command -v "$tool" >/dev/null || { echo "bench/vim-picker needs $tool (make vim-bench installs it)"; exit 1; }
done
wharf=${WHARF:-$PWD/.build/release/wharf}
[ -x "$wharf" ] || make release >&2
work=$(mktemp -d /tmp/wharf-bench-vim-XXXXXX)
socket=wharf-bench-vim-$$
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/small" "$work/big" "$work/state"
for i in $(seq 1 20); do printf 'x\n' > "$work/small/note$i.txt"; done
(cd "$work/big" && seq -f 'entry%05g.txt' 1 10000 | xargs touch)
cat > "$work/vimrc" <<VIMRC
set nocompatible encoding=utf-8 laststatus=2 shortmess+=I
set runtimepath^=$PWD/clients/vim
runtime plugin/wharf.vim
let g:wharf_cmd = ['$wharf', '--state-dir', '$work/state']
let g:wharf_presenter = 'vim'
VIMRC
tmux -L "$socket" new-session -d -x 120 -y 40 \
  "BENCH_OUT=$work/out BENCH_SMALL=$work/small BENCH_BIG=$work/big vim -N -u $work/vimrc -i NONE -S $PWD/bench/vim-picker/bench.vim; sleep 1"
for _ in $(seq 1 6000); do [ -s "$work/out" ] && break; sleep 0.1; done
if grep -q '^error' "$work/out" || ! [ -s "$work/out" ]; then
  echo "the bench failed:"; cat "$work/out" 2>/dev/null; exit 1
fi
python3 - "$work/out" <<'PY'
import statistics, sys
wall, cpu = {}, {}
for line in open(sys.argv[1]):
    name, *values = line.split()
    wall.setdefault(name, []).append(float(values[0]))
    if len(values) > 1:
        cpu.setdefault(name, []).append(float(values[1]))
def cell(name):
    w = wall.get(name)
    if not w:
        return "—"
    return f"{statistics.median(w):.2f} ({min(w):.2f}–{max(w):.2f})"
print("The Vim client, ms, median (min–max) of 7 in one Vim; each figure ends with the screen redrawn")
print()
print("| | 20 entries | 10,000 entries |")
print("| --- | --- | --- |")
print(f"| :WharfOpen → picker drawn, wharf not started | {cell('open-cold-small')} | {cell('open-cold-10k')} |")
print(f"| :WharfOpen → picker drawn, wharf started | {cell('open-warm-small')} | {cell('open-warm-10k')} |")
print(f"| peer: :e dir/<Tab> → wildmenu drawn | {cell('wildmenu-small-list')} | {cell('wildmenu-10k-list')} |")
print(f"| peer: :e dir/<Tab><Tab> → next match drawn | {cell('wildmenu-small-list-and-next')} | {cell('wildmenu-10k-list-and-next')} |")
print()
print(f"Keystroke → redraw in the picker over {int(wall['entries'][0]):,} entries (all pages loaded)")
print()
print("| key | ms |")
print("| --- | --- |")
for name, label in [("picker-j", "j (cursor down)"), ("picker-k", "k (cursor up)"),
                    ("picker-filter-char", "/5 (filter on, as you type: 1,000 match)"),
                    ("picker-filter-backspace", "<BS> (filter off again)"),
                    ("picker-filter-close", "<BS> (leave the filter)"),
                    ("picker-tab-mark", "<Tab> (mark)"),
                    ("picker-tab-unmark", "k<Tab> (unmark)")]:
    print(f"| {label} | {cell(name)} |")
print()
print("load average at the end: " + " ".join(open("/proc/loadavg").read().split()[:3]))
PY
