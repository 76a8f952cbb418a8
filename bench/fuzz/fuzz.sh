#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer target (Sources/WharfFuzz) with AddressSanitizer, replays
# every saved finding (bench/fuzz/findings, which must all pass now), then fuzzes for
# FUZZ_SECONDS (default 60) starting from the seeds and the corpus kept from earlier runs.
#
# A new finding is saved in bench/out/fuzz/findings/ and the script fails; replay it with
#   .build/fuzz/release/WharfFuzz FILE         (the libFuzzer build, with ASan)
#   swift run WharfFuzz -v FILE                (a plain build, for a debugger)
# then fix it, add it to bench/fuzz/findings/ and turn it into a test in
# Tests/WharfEndToEndTests/FuzzFindingsTests.swift.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-60}
out=bench/out/fuzz
mkdir -p "$out/corpus" "$out/findings"

echo "• building the fuzz target (libFuzzer + AddressSanitizer, release)" >&2
# `--sanitize=fuzzer --sanitize=address` would pass two -sanitize= flags, and swiftc keeps only
# the last (no coverage at all); one combined flag instruments every module with both.
# `--sanitize=fuzzer` stays so that SwiftPM lets libFuzzer provide `main`.
swift build -c release --product WharfFuzz --scratch-path .build/fuzz \
    --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DWHARF_FUZZING >&2
fuzzer=.build/fuzz/release/WharfFuzz

cc -O2 -Wall -Wextra -o "$out/sandbox" bench/fuzz/sandbox.c
root=$(pwd)
python3 bench/fuzz/make-seeds.py "$out/seeds" "$root/$out/fixtures" .

# Leaks are left to the soak test's valgrind run (make bench): libFuzzer's per-input leak check
# races with work an input leaves behind on other threads (an export finishing, a timer), and
# reports Swift's weak-reference side tables held only by such work as leaks.
# Swift's own crash reporter would run after ASan's and confuse the report.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}

# Inputs reach the exporter and writeFile: the fuzzer may write only beneath $out (and its
# memory files in /dev/shm). Relative paths land in $out/scratch.
mkdir -p "$out/scratch"
sandboxed() {
    local status=0
    (cd "$out/scratch" && "$root/$out/sandbox" "$root/$out" /dev/shm -- "$@") || status=$?
    if [ "$status" = 3 ] && [ "${FUZZ_UNSANDBOXED:-0}" != 1 ]; then
        echo "refusing to fuzz without Landlock (set FUZZ_UNSANDBOXED=1 to fuzz with full write access)" >&2
    fi
    if [ "$status" = 3 ] && [ "${FUZZ_UNSANDBOXED:-0}" = 1 ]; then
        status=0
        (cd "$out/scratch" && "$@") || status=$?
    fi
    return $status
}

echo "• replaying the saved findings" >&2
if ! sandboxed "$root/$fuzzer" "$root"/bench/fuzz/findings/* >"$out/replay.log" 2>&1; then
    cat "$out/replay.log" >&2
    echo "a saved finding fails again" >&2
    exit 1
fi

echo "• fuzzing for $seconds s" >&2
status=0
sandboxed "$root/$fuzzer" "$root/$out/corpus" "$root/$out/seeds" \
    -dict="$root/bench/fuzz/wharf.dict" \
    -max_total_time="$seconds" \
    -max_len=65536 \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -artifact_prefix="$root/$out/findings/" \
    -print_final_stats=1 \
    -detect_leaks=0 \
    2> >(tee "$out/last-run.log" | grep -E '^#[0-9]+.*(pulse|DONE)|ERROR|wharf-fuzz:|Test unit written' >&2) || status=$?
if [ "$status" != 0 ]; then
    echo "• the fuzzer found something (exit status $status): see $out/last-run.log and $out/findings/" >&2
    exit 1
fi
echo "• no finding in $seconds s; corpus: $(ls "$out/corpus" | wc -l) inputs in $out/corpus" >&2
