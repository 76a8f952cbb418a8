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
swift build -c release --product WharfFuzz --scratch-path .build/fuzz \
    --sanitize=fuzzer --sanitize=address -Xswiftc -DWHARF_FUZZING >&2
fuzzer=.build/fuzz/release/WharfFuzz

python3 bench/fuzz/make-seeds.py "$out/seeds" .

# Swift's own crash reporter would run after ASan's and confuse the report.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}

echo "• replaying the saved findings" >&2
"$fuzzer" -runs=0 bench/fuzz/findings/* >/dev/null 2>"$out/replay.log" || {
    cat "$out/replay.log" >&2
    echo "a saved finding fails again" >&2
    exit 1
}
for finding in bench/fuzz/findings/*; do "$fuzzer" "$finding" >>"$out/replay.log" 2>&1; done

echo "• fuzzing for $seconds s" >&2
"$fuzzer" "$out/corpus" "$out/seeds" \
    -dict=bench/fuzz/wharf.dict \
    -max_total_time="$seconds" \
    -max_len=65536 \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -artifact_prefix="$out/findings/" \
    -print_final_stats=1 \
    2> >(tee "$out/last-run.log" | grep -E '^#[0-9]+.*(pulse|DONE)|ERROR|wharf-fuzz:|Test unit written' >&2)
echo "• no finding in $seconds s; corpus: $(ls "$out/corpus" | wc -l) inputs in $out/corpus" >&2
