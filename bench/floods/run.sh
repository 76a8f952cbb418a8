#!/usr/bin/env bash
# Peak memory of the server under the floods of issue 12 (bench/floods/flood.py does each run):
#
#   readFile  24 pipelined readFile requests of 16 MiB each from a client that reads nothing
#             for 2 s, then reads every answer. Every answer counts against the client's
#             16 MiB output budget, so the server stops reading instead of holding 24 answers
#             (it once went from 11 MB to 645 MB). Target: under 192 MiB however many such
#             requests come: about one answer in flight (a 16 MiB read is 22 MiB of base64,
#             copied a few times on its way out).
#   listing   24 dialogs of one presenter client each listing a folder of 100,000 entries
#             (a page of one entry each, so the answers are small and the listings are what
#             is kept). The listing cache keeps at most 250,000 entries per client and
#             1,000,000 in all; one listing of 100,000 short names keeps about 3 MiB (the
#             names in one buffer, their offsets, order and folder flags; each page's details
#             are read when it is served), so unbounded the 24 listings would take about
#             70 MiB; before that change an entry took about 270 bytes (27 MiB a listing,
#             650 MiB for 24). Target: under 192 MiB
#             however many dialogs list (the cache's share, one listing being read, and what
#             the allocator keeps of the listings dropped).
#
# Usage: bench/floods/run.sh [RUNS]   (default 5; medians, with the spread)
# Environment: WHARF, the binary (default .build/release/wharf, built if missing).
set -euo pipefail

runs=${1:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
wharf=${WHARF:-$root/.build/release/wharf}
if [[ ! -x $wharf ]]; then
    make -C "$root" --no-print-directory release >/dev/null
fi

work=$(mktemp -d /tmp/wharf-bench-floods-XXXXXX)
trap 'rm -rf "$work"' EXIT
head -c 16777216 /dev/urandom > "$work/16MiB.bin"
mkdir "$work/entries"
(cd "$work/entries" && seq -f "file%06g.txt" 0 99999 | xargs touch)

readfile=() listing=() idle=()
for _ in $(seq "$runs"); do
    result=$(python3 "$root/bench/floods/flood.py" readfile "$wharf" "$work/16MiB.bin" --requests 24 --hold 2)
    readfile+=("$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["peakKiB"] / 1024)' "$result")")
    idle+=("$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["idleKiB"] / 1024)' "$result")")
    result=$(python3 "$root/bench/floods/flood.py" listing "$wharf" "$work/entries" --dialogs 24)
    listing+=("$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["peakKiB"] / 1024)' "$result")")
done

# "median (min–max)" of the arguments, one decimal.
summary() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { printf "%.1f MiB (%.1f–%.1f)", a[int((NR + 1) / 2)], a[1], a[NR] }'; }

echo "Server peak resident memory (VmHWM), $runs runs, medians (spread); release build, state in memory"
echo "readFile flood: 24 pipelined readFile requests for 16 MiB each, the client reading nothing for 2 s"
echo "listing flood:  24 dialogs of one client, each listing a folder of 100,000 entries"
echo "idle, after initialize:       $(summary "${idle[@]}")"
echo "peak RSS, readFile flood:     $(summary "${readfile[@]}") (target < 192)"
echo "peak RSS, listing flood:      $(summary "${listing[@]}") (target < 192)"
