#!/usr/bin/env bash
# The Neovim plugin's speed: :WharfOpen to the picker filled over a small folder and a
# 10,000-entry one (bench.lua). NVIM picks the Neovim (default: make test-nvim's), WHARF the
# binary (default: the release build), BENCH_REPS the repetitions (9).
set -euo pipefail
cd "$(dirname "$0")/../.."
nvim=${NVIM:-$PWD/.build/nvim-venv/bin/nvim}
wharf=${WHARF:-$PWD/.build/release/wharf}
[ -x "$wharf" ] || make release >&2
[ -x "$nvim" ] || make .build/nvim-venv/.installed >&2
work=$(mktemp -d /tmp/wharf-bench-nvim-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/small" "$work/big" "$work/state"
for i in $(seq 1 20); do printf 'x\n' > "$work/small/note$i.txt"; done
(cd "$work/big" && seq -f 'entry%05g.txt' 1 10000 | xargs touch)
WHARF=$wharf PLUGIN=${PLUGIN:-$PWD/clients/nvim} WORK=$work BENCH_NVIM=${BENCH_NVIM:-$nvim} \
  "$nvim" --clean --headless -l bench/nvim-picker/bench.lua
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
