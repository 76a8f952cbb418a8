#!/usr/bin/env bash
# The terminal picker's speed, through a pseudo-terminal: `wharf pick --presenter terminal`
# from its start to its first frame (1,000 and 100,000 entries), a filter keystroke to the
# redrawn frame over 100,000 entries (p95), and its resident memory with them all listed;
# beside fzf reading the same names (`find | fzf --filter`) and `ls`, in the same run.
#
# Usage: bench/terminal/run.sh [RUNS]   (WHARF: the binary, by default the release build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
wharf=${WHARF:-$root/.build/release/wharf}
[ -x "$wharf" ] || make -C "$root" release >&2
command -v fzf >/dev/null || { sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo; DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 fzf >/dev/null; }
exec python3 "$root/bench/terminal/measure.py" "$wharf" "${1:-5}"
