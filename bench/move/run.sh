#!/usr/bin/env bash
# Move benchmark (issue 40): Wharf's file mover against mv, in one run.
#
#   1 GiB from a tmpfs to the disk         vs  mv of the same file     target: ≥ 0.8x mv's speed
#   1,000 small files within one file system vs mv of the same files   target: ≥ 0.5x mv's rate
#   a move within one file system: 1 GiB against 1 KiB                  target: the same time
#                                                                       (1 KiB ÷ 1 GiB ≥ 0.5x)
#
# Usage: bench/move/run.sh [runs]        (default 5; medians are reported)
# Environment:
#   BENCH_DIR       the disk folder moved into (default /tmp/wharf-move-bench); the 1 GiB
#                   source is kept there between runs and copied to the tmpfs before each move.
#   WHARF_MOVE_CMD  the command that moves, called as `$WHARF_MOVE_CMD FOLDER SOURCE...`; it
#                   must exit 0 once every source is in FOLDER. The default drives FileMover
#                   through the release build of Tests/Tools/MoveProbe.
#
# The tmpfs is mounted for the run (root), or /dev/shm is used. Wharf fsyncs every file it
# copies and both folders before it reports success; mv does not. So the table also shows
# "mv + sync" (mv, then coreutils `sync` of the moved file and the folder) as the like-for-like
# comparison; the targets are judged against plain mv, as the issue states them.
set -euo pipefail

runs=${1:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_DIR:-/tmp/wharf-move-bench}
mkdir -p "$work"

if [[ -z "${WHARF_MOVE_CMD:-}" ]]; then
    # A scratch folder of its own: the shipped build's (make release) has other flags. The
    # Swift runtime is linked in, as in the shipped binary: with the shared one, binding it at
    # start-up costs more than a thousand renames.
    (cd "$root" && swift build -c release --static-swift-stdlib --product wharf-move-probe --scratch-path .build/bench-move >/dev/null)
    probe="$root/.build/bench-move/release/wharf-move-probe"
    move_with_probe() { local folder=$1; shift; "$probe" --into "$folder" "$@" >/dev/null; }
    WHARF_MOVE_CMD=move_with_probe
fi

memory="$work/memory"
mkdir -p "$memory"
mounted=""
if [[ $(id -u) == 0 ]] && mount -t tmpfs -o size=1200m wharf-move-bench "$memory" 2>/dev/null; then
    mounted=1
else
    memory=$(mktemp -d /dev/shm/wharf-move-bench-XXXXXX)
fi
cleanup() {
    rm -rf "$memory"/* "$work/disk" "$work/small" "$work/time.txt"
    if [[ -n $mounted ]]; then umount "$memory"; else rmdir "$memory"; fi
}
trap cleanup EXIT

big="$work/source-1GiB.bin"
if [[ ! -f "$big" || $(stat -c %s "$big") -ne 1073741824 ]]; then
    echo "creating $big" >&2
    head -c 1073741824 /dev/urandom > "$big"
fi
mkdir -p "$work/disk"

now() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# Times one command in microseconds (wall), after flushing earlier writes so that one run's
# writeback does not slow the next.
time_us() {
    sync
    local start end
    start=$(now)
    bash -c '"$@"' _ "$@" || { echo "failed: $*" >&2; exit 1; }
    end=$(now)
    echo $(( (end - start) / 1000 ))
}
# Both called as the Wharf command is: FOLDER SOURCE...
mv_into() { local folder=$1; shift; mv "$@" "$folder"; }
mv_sync() { local folder=$1; shift; mv "$@" "$folder" && sync "$folder" "$folder"/*; }
export -f mv_into mv_sync
[[ $(type -t "$WHARF_MOVE_CMD") == function ]] && export -f "$WHARF_MOVE_CMD"
export probe

declare -A us
sample() { us[$1]+="$2 "; }

# 1 GiB from the tmpfs to the disk.
big_move() {  # name, command...
    local name=$1; shift
    cp "$big" "$memory/moved.bin"
    sample "$name" "$(time_us "$@" "$work/disk" "$memory/moved.bin")"
    cmp -s "$big" "$work/disk/moved.bin" || { echo "wrong contents after $name" >&2; exit 1; }
    [[ ! -e "$memory/moved.bin" ]] || { echo "$name left its source" >&2; exit 1; }
    rm -f "$work/disk/moved.bin"
}

# 1,000 small files within one file system, one command for all of them.
small_files() {  # name, command...
    local name=$1 i; shift
    rm -rf "$work/small" && mkdir -p "$work/small/from" "$work/small/to"
    for i in $(seq -w 1 1000); do printf 'small file %s\n' "$i" > "$work/small/from/file-$i.txt"; done
    local sources=("$work/small/from"/*)
    sample "$name" "$(time_us "$@" "$work/small/to" "${sources[@]}")"
    [[ $(ls "$work/small/to" | wc -l) == 1000 && -z $(ls "$work/small/from") ]] || { echo "$name moved the wrong files" >&2; exit 1; }
}

# One file within the disk file system, by size.
same_fs() {  # name, source
    local name=$1 source=$2
    mkdir -p "$work/disk/there"
    sample "$name" "$(time_us "$WHARF_MOVE_CMD" "$work/disk/there" "$source")"
    mv "$work/disk/there/$(basename "$source")" "$source"
}

head -c 1024 /dev/urandom > "$work/disk/small.bin"
for ((i = 1; i <= runs; i++)); do
    echo "run $i/$runs" >&2
    big_move mv_big mv_into
    big_move mv_sync_big mv_sync
    big_move wharf_big "$WHARF_MOVE_CMD"
    small_files mv_small mv_into
    small_files mv_sync_small mv_sync
    small_files wharf_small "$WHARF_MOVE_CMD"
    same_fs wharf_same_1k "$work/disk/small.bin"
    same_fs wharf_same_1g "$big"
done

echo >&2
for k in mv_big mv_sync_big wharf_big mv_small mv_sync_small wharf_small wharf_same_1k wharf_same_1g; do
    echo "samples $k: wall µs ${us[$k]}" >&2
done
m() { tr ' ' '\n' <<<"${us[$1]}" | grep . | median; }
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
rate() { awk -v u="$1" 'BEGIN { printf "%d", 1000 / (u / 1e6) }'; }

echo
echo "Move benchmark, $runs runs, medians ($(findmnt -no FSTYPE -T "$memory") $memory to $(findmnt -no FSTYPE -T "$work") $work; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
printf '%-40s %10s   %s\n' "" "wall" "speed"
printf '%-40s %7s ms\n' "mv 1 GiB tmpfs to disk" "$(ms "$(m mv_big)")"
printf '%-40s %7s ms\n' "mv + sync 1 GiB tmpfs to disk" "$(ms "$(m mv_sync_big)")"
printf '%-40s %7s ms   %5sx vs mv (target >= 0.8)\n' "wharf move 1 GiB tmpfs to disk" "$(ms "$(m wharf_big)")" "$(ratio "$(m mv_big)" "$(m wharf_big)")"
printf '%-40s %7s ms   %5sx vs mv + sync\n' "  (same, vs mv + sync)" "$(ms "$(m wharf_big)")" "$(ratio "$(m mv_sync_big)" "$(m wharf_big)")"
printf '%-40s %7s ms   %6s files/s\n' "mv 1,000 small files, one fs" "$(ms "$(m mv_small)")" "$(rate "$(m mv_small)")"
printf '%-40s %7s ms   %6s files/s\n' "mv + sync 1,000 small files, one fs" "$(ms "$(m mv_sync_small)")" "$(rate "$(m mv_sync_small)")"
printf '%-40s %7s ms   %6s files/s   %5sx vs mv (target >= 0.5)\n' "wharf move 1,000 small files, one fs" "$(ms "$(m wharf_small)")" \
    "$(rate "$(m wharf_small)")" "$(ratio "$(m mv_small)" "$(m wharf_small)")"
printf '%-40s %7s ms\n' "wharf move 1 KiB within one fs" "$(ms "$(m wharf_same_1k)")"
printf '%-40s %7s ms   %5sx as fast as 1 KiB (target >= 0.5)\n' "wharf move 1 GiB within one fs" "$(ms "$(m wharf_same_1g)")" \
    "$(ratio "$(m wharf_same_1k)" "$(m wharf_same_1g)")"
