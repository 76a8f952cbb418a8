#!/bin/sh
# Runs the Vim client's tests: each tests/test_*.vim in a fresh `vim -N -u NONE -Es` with the
# plugin on 'runtimepath', against the real wharf ($WHARF). Prints one line per test and
# "N passed, N failed". WHARF_TEST_FILTER=words runs the tests whose names contain them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${WHARF:?set WHARF to the wharf binary}"
VIM=${VIM_BINARY:-vim}
passed=0
failed=0
for file in "$here"/test_*.vim; do
  if [ "${WHARF_TEST_FILTER:-}" = tmux ]; then break; fi
  out=$(mktemp)
  WHARF_TEST_FILE="$file" WHARF_TEST_OUT="$out" timeout 120 "$VIM" -N -u NONE -i NONE -Es \
    --cmd "set encoding=utf-8 columns=160 lines=50 rtp^=$here/.." --cmd 'runtime plugin/wharf.vim' -S "$here/runner.vim" </dev/null
  status=$?
  if [ ! -s "$out" ] || ! grep -q '^done$' "$out"; then
    echo "not ok $(basename "$file"): vim exited with status $status before finishing"
    cat "$out"
    failed=$((failed + 1))
  fi
  while IFS= read -r line; do
    case "$line" in
      "ok "*) passed=$((passed + 1)); echo "$line" ;;
      "not ok "*) failed=$((failed + 1)); echo "$line" ;;
      "  "*) echo "$line" ;;
    esac
  done < "$out"
  rm -f "$out"
done
if [ -z "${WHARF_TEST_FILTER:-}" ] || [ "${WHARF_TEST_FILTER}" = tmux ]; then
  out=$(mktemp)
  "$here/tmux.sh" > "$out" 2>&1
  while IFS= read -r line; do
    case "$line" in
      "ok "*) passed=$((passed + 1)); echo "$line" ;;
      "not ok "*) failed=$((failed + 1)); echo "$line" ;;
      *) echo "$line" ;;
    esac
  done < "$out"
  rm -f "$out"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
