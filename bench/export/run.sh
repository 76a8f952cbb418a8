#!/usr/bin/env bash
# Export benchmark (issue 5): Wharf's atomic export against the plain tools, in one run.
#
#   1 GiB `path` document  vs  cp of the same file         target: ≥ 0.8x cp's speed
#   64 MiB `base64` document vs  base64 -d of the same text  target: at least as fast
#   peak resident memory while exporting the 1 GiB file      target: < 64 MiB
#
# Beside them, for the base64 document: the floor jansson sets (bench/export/jansson-floor.c
# times json_loadb of the same request, nothing else; jansson is the only JSON parser on
# Wharf's message path, so no export of that message can be faster) and the peak resident
# memory of that export.
#
# Usage: bench/export/run.sh [runs]        (default 5; medians are reported)
# Environment:
#   BENCH_DIR         where sources and destinations live (default /tmp/wharf-export-bench);
#                     put it on the file system you care about, the copies stay on it.
#   WHARF_EXPORT_CMD  the command that performs one Wharf export, called as
#                       $WHARF_EXPORT_CMD path   DEST SOURCE_FILE
#                       $WHARF_EXPORT_CMD base64 DEST BASE64_TEXT_FILE
#                     It must exit 0 once DEST is complete. Before any clock starts it is
#                     also called once per document as
#                       $WHARF_EXPORT_CMD prepare path   SOURCE_FILE
#                       $WHARF_EXPORT_CMD prepare base64 BASE64_TEXT_FILE
#                     to get ready what a client would have ready-made (the request's
#                     params: base64 -d, too, is handed its input as it is); it must exit 0,
#                     and may do nothing. The default drives AtomicWriter
#                     through the release build of Tests/Tools/WriteProbe. To measure the
#                     real server, point it at a driver that starts `wharf`, sends
#                     presentExporter with the document (`{"path": SOURCE}`, or
#                     `{"base64": <contents of the text file>}`), chooses DEST, waits for
#                     dialog/completed and waits for the server to exit: peak memory is read
#                     from /usr/bin/time, which sees the driver and every child it waited for.
#
# Wharf fsyncs the file and its directory before reporting success; cp and base64 -d do not.
# So the table also shows "cp + fsync" (cp, then coreutils `sync FILE`) as the like-for-like
# comparison; the targets are judged against the plain tools, as the issue states them.
set -euo pipefail

runs=${1:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_DIR:-/tmp/wharf-export-bench}
mkdir -p "$work"

if [[ -z "${WHARF_EXPORT_CMD:-}" ]]; then
    # A scratch folder of its own: the shipped build's (make release) has other flags.
    (cd "$root" && swift build -c release --product wharf-write-probe --scratch-path .build/bench >/dev/null)
    probe="$root/.build/bench/release/wharf-write-probe"
    export_with_probe() {
        local form=$1 destination=$2 source=$3
        case $form in
            prepare) ;;
            path) "$probe" --file "$destination" "$source" >/dev/null ;;
            base64) "$probe" --base64 "$destination" "$source" >/dev/null ;;
        esac
    }
    WHARF_EXPORT_CMD=export_with_probe
fi

big="$work/source-1GiB.bin"
small="$work/source-64MiB.bin"
text="$work/source-64MiB.b64"
if [[ ! -f "$big" || $(stat -c %s "$big") -ne 1073741824 ]]; then
    echo "creating $big" >&2
    head -c 1073741824 /dev/urandom > "$big"
fi
if [[ ! -f "$text" ]]; then
    head -c 67108864 /dev/urandom > "$small"
    base64 -w 0 "$small" > "$text"
fi

# The jansson floor, built here (it needs gcc and jansson's headers; without them the row is
# left out).
floor_program="$root/bench/out/jansson-floor"
if [[ ! -x $floor_program || $root/bench/export/jansson-floor.c -nt $floor_program ]]; then
    mkdir -p "$root/bench/out"
    gcc -O2 -o "$floor_program" "$root/bench/export/jansson-floor.c" -ljansson 2>/dev/null || floor_program=""
fi

"$WHARF_EXPORT_CMD" prepare path "$big"
"$WHARF_EXPORT_CMD" prepare base64 "$text"

now() { date +%s%N; }
# Times one command: prints "wall_ms cpu_ms" (CPU = user + system, from /usr/bin/time). The
# destination is removed first and, once checked against the expected bytes (when given),
# afterwards; earlier writes are flushed before the clock starts so that one run's writeback
# does not slow the next. Every command runs as `bash -c` so functions and programs are
# measured the same way.
time_ms() {
    local destination=$1 expected=$2; shift 2
    rm -f "$destination"
    sync
    local start end cpu
    start=$(now)
    /usr/bin/time -o "$work/time.txt" -f "%U %S" bash -c '"$@"' _ "$@" || { echo "failed: $*" >&2; exit 1; }
    end=$(now)
    cpu=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$work/time.txt")
    if [[ -n $expected ]] && ! cmp -s "$expected" "$destination"; then
        echo "wrong contents in $destination after: $*" >&2
        exit 1
    fi
    rm -f "$destination"
    echo "$(( (end - start) / 1000000 )) $cpu"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

cp_fsync() { cp "$1" "$2" && sync "$2"; }
base64_decode() { base64 -d "$1" > "$2"; }
export -f cp_fsync base64_decode
[[ $(type -t "$WHARF_EXPORT_CMD") == function ]] && export -f "$WHARF_EXPORT_CMD"
export probe

declare -A wall cpu
measure() {
    local name=$1; shift
    local result
    result=$(time_ms "$@")
    wall[$name]+="${result% *} "
    cpu[$name]+="${result#* } "
}
for ((i = 1; i <= runs; i++)); do
    echo "run $i/$runs" >&2
    measure cp "$work/out" "" cp "$big" "$work/out"
    measure cp_fsync "$work/out" "" cp_fsync "$big" "$work/out"
    measure wharf_path "$work/out" "$big" "$WHARF_EXPORT_CMD" path "$work/out" "$big"
    measure base64_d "$work/out" "" base64_decode "$text" "$work/out"
    measure wharf_base64 "$work/out" "$small" "$WHARF_EXPORT_CMD" base64 "$work/out" "$text"
    if [[ -n $floor_program ]]; then
        # Timed inside the program (json_loadb alone), so its own "wall cpu" is the sample.
        result=$("$floor_program" "$text")
        wall[jansson_floor]+="${result% *} "
        cpu[jansson_floor]+="${result#* } "
    fi
done

# Peak memory of one more 1 GiB export, as /usr/bin/time sees it (maximum resident set size of
# the command and the children it waited for).
rm -f "$work/out"
sync
peak_kib=$( { /usr/bin/time -f "%M" bash -c '"$@"' _ "$WHARF_EXPORT_CMD" path "$work/out" "$big" >/dev/null; } 2>&1 | tail -n 1)
# And of one more base64 export: the server holds the message (85 MiB of text) and the
# document at some point; how many copies at once is what this shows.
rm -f "$work/out"
sync
peak_base64_kib=$( { /usr/bin/time -f "%M" bash -c '"$@"' _ "$WHARF_EXPORT_CMD" base64 "$work/out" "$text" >/dev/null; } 2>&1 | tail -n 1)
rm -f "$work/out" "$work/time.txt"

echo >&2
for k in cp cp_fsync wharf_path base64_d jansson_floor wharf_base64; do
    [[ -n ${wall[$k]:-} ]] || continue
    echo "samples $k: wall ms ${wall[$k]}| cpu ms ${cpu[$k]}" >&2
done
m() { local -n table=$1; tr ' ' '\n' <<<"${table[$2]}" | grep . | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
row() {  # name, label, baseline name for the ratio, note
    local w c
    w=$(m wall "$1"); c=$(m cpu "$1")
    if [[ -n ${3:-} ]]; then
        printf '%-30s %7s ms %7s ms   %5sx %5sx   %s\n' "$2" "$w" "$c" \
            "$(ratio "$(m wall "$3")" "$w")" "$(ratio "$(m cpu "$3")" "$c")" "$4"
    else
        printf '%-30s %7s ms %7s ms\n' "$2" "$w" "$c"
    fi
}

echo
echo "Export benchmark, $runs runs, medians ($(findmnt -no FSTYPE -T "$work") at $work; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
printf '%-30s %10s %10s   %13s\n' "" "wall" "cpu" "speed: wall  cpu"
row cp "cp 1 GiB"
row cp_fsync "cp 1 GiB + fsync"
row wharf_path "wharf export 1 GiB path" cp "vs cp (target >= 0.8)"
row wharf_path "  (same, vs cp + fsync)" cp_fsync "vs cp + fsync"
row base64_d "base64 -d 64 MiB"
[[ -n ${wall[jansson_floor]:-} ]] && row jansson_floor "jansson floor (json_loadb only)"
row wharf_base64 "wharf export 64 MiB base64" base64_d "vs base64 -d (target >= 1)"
[[ -n ${wall[jansson_floor]:-} ]] && row wharf_base64 "  (same, vs the jansson floor)" jansson_floor "vs json_loadb of its message"
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
printf '%-30s %7s MiB (target < 64)\n' "peak RSS, 1 GiB path export" "$(mib "$peak_kib")"
printf '%-30s %7s MiB\n' "peak RSS, 64 MiB base64 export" "$(mib "$peak_base64_kib")"
