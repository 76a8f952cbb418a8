#!/usr/bin/env bash
# Inside the rig's private session bus (see session.sh).
set -euo pipefail
MODE=${1:-test}
RIGTOOL=${RIGTOOL:-.build/debug/wharf-desktop-rig}
case "$MODE" in
    test)
        # A test left waiting for a window that never comes ends the run after 15 minutes (it
        # takes about 4), rather than holding CI forever.
        WHARF_DESKTOP_RIG=1 timeout --kill-after=10 900 swift test --skip-build --no-parallel --filter "${RIG_FILTER:-RigTests}" 2>&1 | grep -v -E "^warning: 'desktop'|^\[" 
        [ -n "${RIG_FILTER:-}" ] || "$RIGTOOL" measure
        ;;
    screenshots)
        "$RIGTOOL" screenshots docs/screenshots
        ;;
    measure)
        "$RIGTOOL" measure
        ;;
    *)
        echo "rig: unknown mode $MODE" >&2
        exit 2
        ;;
esac
