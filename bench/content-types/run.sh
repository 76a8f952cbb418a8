#!/usr/bin/env bash
# Benchmark: identify 10,000 generated files with Wharf, GLib (`gio info`) and `file --mime-type`,
# several rounds each, and print the medians, the per-file cost and the ratios, plus the time
# Wharf takes to load the MIME database, each against issue 3's target.
#
#   bench/content-types/run.sh                      # the real `wharf types identify` (release build)
#   WHARF=standin bench/content-types/run.sh        # a stand-in compiled against the module alone
#   WHARF=/path/to/wharf bench/content-types/run.sh
#
# Environment: FILES (default 10000), ROUNDS (default 5), BATCH (files per command line, 2000).
# Needs: swift, gio (libglib2.0-bin), file, python3.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
files="${FILES:-10000}"
rounds="${ROUNDS:-5}"
batch="${BATCH:-2000}"
work="$(mktemp -d /tmp/wharf-bench-XXXXXX)"
trap 'rm -rf "$work"' EXIT

for tool in gio file python3; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install libglib2.0-bin file python3)" >&2; exit 1; }
done

if [[ "${WHARF:-}" == standin ]]; then
    echo "building the stand-in (swift build -c release, WharfContentTypes, in .build/bench) …" >&2
    # A scratch folder of its own: the shipped build's (make release) has other flags.
    (cd "$root" && swift build -c release --target WharfContentTypes --scratch-path .build/bench >/dev/null)
    release="$root/.build/bench/release"
    swiftc -O -I "$release/Modules" -o "$work/wharf-standalone" "$here/standalone.swift" \
        "$release"/WharfSystem.build/*.o "$release"/WharfContentTypes.build/*.o
    WHARF="$work/wharf-standalone"
elif [[ -z "${WHARF:-}" ]]; then
    echo "building wharf (make release) …" >&2
    make -C "$root" --no-print-directory release >/dev/null
    WHARF="$root/.build/release/wharf"
fi

echo "generating $files files in $work/corpus …" >&2
python3 "$here/generate.py" "$work/corpus" "$files"
find "$work/corpus" -type f | sort > "$work/list"

# Runs "$@" on every file of the list, $batch files per invocation; prints seconds taken.
time_over_files() {
    local start end
    start=$(date +%s.%N)
    xargs -n "$batch" "$@" < "$work/list" > /dev/null
    end=$(date +%s.%N)
    python3 -c "print($end - $start)"
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

declare -a wharf_times gio_times file_times
for ((round = 0; round < rounds; round++)); do
    wharf_times+=("$(time_over_files "$WHARF" types identify)")
    gio_times+=("$(time_over_files gio info -a standard::content-type)")
    file_times+=("$(time_over_files file --mime-type -b)")
done

declare -a load_times
for ((round = 0; round < 11; round++)); do
    # `load time: N µs`, the registry's own measurement of reading and indexing the database.
    load_times+=("$("$WHARF" types stats | awk '$1 == "load" && $2 == "time:" { print $3 / 1000 }')")
done

wharf=$(median "${wharf_times[@]}")
gio=$(median "${gio_times[@]}")
filetime=$(median "${file_times[@]}")
load=$(median "${load_times[@]}")
python3 - "$files" "$rounds" "$wharf" "$gio" "$filetime" "$load" <<'PY'
import sys
files, rounds = int(sys.argv[1]), int(sys.argv[2])
wharf, gio, file, load = map(float, sys.argv[3:])
print(f"files: {files}, rounds: {rounds} (medians)")
for name, t in (("wharf types identify", wharf), ("gio info", gio), ("file --mime-type", file)):
    print(f"{name:22} {t:8.3f} s  {t / files * 1e6:8.1f} µs/file")
print(f"per file, wharf vs file --mime-type: {file / wharf:.2f}x faster (target >= 1)")
print(f"per file, wharf vs gio info: {gio / wharf:.2f}x faster")
print(f"registry load (median of 11 runs): {load:.2f} ms (target < 5)")
PY
