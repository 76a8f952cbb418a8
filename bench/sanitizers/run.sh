#!/usr/bin/env bash
# `make test-asan` / `make test-tsan`: the Swift test suite built with AddressSanitizer (with
# LeakSanitizer) or ThreadSanitizer, into its own scratch path so the normal build is untouched.
#
# Usage: bench/sanitizers/run.sh address|thread [swift test arguments, e.g. --filter Soak]
#        bench/sanitizers/run.sh address|thread --build-only
#
# --build-only builds and stops: `make test` builds both sanitizers' suites beside its other
# suites, at idle priority, and runs them later (the build is then already done).
#
# The end-to-end tests spawn the `wharf` binary of the same build, so it is instrumented too.
# Its reports would go to a standard error that only the test reads; every report of every
# process therefore goes to a file (log_path), and any report fails the run, even when the
# tests themselves pass.
set -euo pipefail
cd "$(dirname "$0")/../.."

sanitizer=${1:?usage: run.sh address|thread [swift test arguments]}
shift
case $sanitizer in
    address) scratch=.build/asan ;;
    thread) scratch=.build/tsan ;;
    *) echo "unknown sanitizer $sanitizer (address or thread)" >&2; exit 2 ;;
esac

reports=$(mktemp -d "${TMPDIR:-/tmp}/wharf-$sanitizer-reports.XXXXXX")
trap 'rm -rf "$reports"' EXIT

started=$(date +%s)
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
built=$(date +%s)
if [ "${1:-}" = --build-only ]; then
    echo "$sanitizer sanitizer: build $((built - started)) s" >&2
    exit 0
fi

# ASan: a small quarantine keeps the instrumented server's memory close to a normal build's,
# since some tests bound it (a client that stops reading). LSan: XCTest's own objects are
# suppressed (bench/sanitizers/lsan.supp). Swift's backtracer is off so that reports are the
# sanitizer's alone.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="quarantine_size_mb=16:detect_leaks=1:log_path=$reports/asan"
export LSAN_OPTIONS="suppressions=$PWD/bench/sanitizers/lsan.supp"
export TSAN_OPTIONS="halt_on_error=0:log_path=$reports/tsan"

# The soak (100,000 dialog cycles) is left out: instrumented, it takes five minutes or more,
# and its memory comparison measures the sanitizer's allocator. It runs on its own in
# `make test-soak` and, under valgrind, in `make bench`.
status=0
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --skip Soak "$@" || status=$?
finished=$(date +%s)

# A file that only lists the suppressions used is not a report.
found=$( (grep -l -E 'ERROR: |WARNING: ThreadSanitizer|SUMMARY: ' "$reports"/* 2>/dev/null || true) | wc -l)
if [ "$found" -gt 0 ]; then
    for report in $(grep -l -E 'ERROR: |WARNING: ThreadSanitizer|SUMMARY: ' "$reports"/*); do
        echo "=== $(basename "$report")" >&2
        cat "$report" >&2
    done
    echo "$sanitizer sanitizer: $found report(s), above" >&2
    status=1
fi
echo "$sanitizer sanitizer: build $((built - started)) s, tests $((finished - built)) s, reports: $found" >&2
exit $status
