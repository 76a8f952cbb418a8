#!/usr/bin/env bash
# Benchmark: the dialog engine's directory listing (what `dialog/list` serves) against
#   gio list -a standard::fast-content-type,standard::size
# on the same directory of 100,000 entries, in one run. Target: at least 1.5x faster.
#
# Usage: bench/dialog-list/run.sh [ENTRIES] [RUNS]
# Leaves nothing behind except bench/out/dialog-list (the built timing program).
#
# What is compared: gio reads the directory, stats each entry, guesses a content type from the
# name and prints everything; the engine reads, stats, identifies by name (a table of common
# extensions standing in for the server's registry), judges `enabled`, sorts, and hands out
# every page as values. The server adds JSON encoding on top; the lead's end-to-end driver
# measures that.
set -eu

entries=${1:-100000}
runs=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/bench/out/dialog-list"
mkdir -p "$out"

command -v gio >/dev/null || { echo "gio is not installed (apt-get install libglib2.0-bin)"; exit 1; }

echo "building WharfDialogs (release, in .build/bench)…"
# A scratch folder of its own: the shipped build's (make release) has other flags.
(cd "$root" && swift build -c release --target WharfDialogs --scratch-path .build/bench >/dev/null)
release="$root/.build/bench/release"
# The objects of each module's current sources only: a deleted source's object lingers in the
# build folder and would be linked in too.
objects=()
for module in WharfSystem WharfFileWriting WharfDialogs; do
    for source in "$root/Sources/$module"/*.swift; do objects+=("$release/$module.build/$(basename "$source").o"); done
done
# WharfSystem's C module for the terminal (its module map is the one SwiftPM made).
objects+=("$release/CTerminal.build/terminal.c.o")
includes=(-I "$release/Modules" -I "$root/Sources/CProcessSpawn" -Xcc -fmodule-map-file="$release/CTerminal.build/module.modulemap")
swiftc -O -parse-as-library -module-name ListBench "${includes[@]}" \
    "$root/bench/dialog-list/main.swift" "${objects[@]}" -o "$out/list-bench" 2>/dev/null || \
swiftc -O -module-name ListBench "${includes[@]}" \
    "$root/bench/dialog-list/main.swift" "${objects[@]}" -o "$out/list-bench"

work=$(mktemp -d /tmp/wharf-bench-list-XXXXXX)
trap 'rm -rf "$work"' EXIT
dir="$work/entries"
mkdir "$dir"
echo "creating $entries entries in $dir…"
(
    cd "$dir"
    # A mix of extensions, some directories, some hidden files, in batches for speed.
    seq 0 $((entries - 1)) | awk '{
        n = $1; m = n % 12
        split("txt md json pdf png jpg swift c h csv bin dat", e, " ")
        if (n % 1000 == 0) print "d " "folder" n
        else if (n % 500 == 1) print "f " ".hidden" n ".txt"
        else print "f " "file" n "." e[m + 1]
    }' > "$work/names"
    grep '^d ' "$work/names" | cut -c3- | xargs mkdir
    grep '^f ' "$work/names" | cut -c3- | xargs touch
)
echo "entries: $(ls -A "$dir" | wc -l)"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }

# Warm the dentry and inode caches for both contenders.
gio list -a standard::fast-content-type,standard::size "$dir" >/dev/null
"$out/list-bench" "$dir" 1 >/dev/null

# One round runs each contender once, one after the other, so that whatever else the machine
# does weighs on both alike: gio, the engine in process (its own timing line) and the engine as
# a whole process. Medians over the rounds.
gio_runs=() engine_runs=() first_page_runs=() process_runs=()
for _ in $(seq "$runs"); do
    start=$(now)
    gio list -a standard::fast-content-type,standard::size "$dir" >/dev/null
    end=$(now)
    gio_runs+=("$(echo "$end - $start" | bc -l)")
    line=$("$out/list-bench" "$dir" 1)
    engine_runs+=("$(echo "$line" | awk '{ print $1 }')")
    first_page_runs+=("$(echo "$line" | awk '{ print $3 }')")
    listed=$(echo "$line" | awk '{ print $2 }')
    start=$(now)
    "$out/list-bench" "$dir" 1 >/dev/null
    end=$(now)
    process_runs+=("$(echo "$end - $start" | bc -l)")
done
gio_times=$(printf '%s\n' "${gio_runs[@]}" | median)
engine_times=$(printf '%s\n' "${engine_runs[@]}" | median)
first_page_times=$(printf '%s\n' "${first_page_runs[@]}" | median)
process_times=$(printf '%s\n' "${process_runs[@]}" | median)

ratio=$(echo "$gio_times / $engine_times" | bc -l)
process_ratio=$(echo "$gio_times / $process_times" | bc -l)
printf 'gio list (fast-content-type, size):  median %.3f s over %d runs (whole process)\n' "$gio_times" "$runs"
printf 'wharf dialog list, in process:       median %.3f s (%d entries listed, hidden excluded as gio does)\n' "$engine_times" "$listed"
printf 'wharf dialog list, whole process:    median %.3f s\n' "$process_times"
printf 'wharf dialog list, first page of 10,000, in process: median %.3f s\n' "$first_page_times"
printf 'speed-up: %.2fx in process, %.2fx as processes (target: at least 1.5x)\n' "$ratio" "$process_ratio"
