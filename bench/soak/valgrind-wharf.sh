#!/usr/bin/env bash
# Stands in for `wharf` (WHARF=this script) so that every server the soak test starts runs
# under valgrind's leak checker; one log per process in $SOAK_VALGRIND_LOGS.
exec valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --suppressions="$(cd "$(dirname "$0")" && pwd)/valgrind.supp" \
    --num-callers=30 --log-file="${SOAK_VALGRIND_LOGS:?}/valgrind.%p.log" \
    "$(cd "$(dirname "$0")/../.." && pwd)/.build/release/wharf" "$@"
