#!/usr/bin/env bash
# The desktop rig (`make test-desktop`, `make screenshots`): real dialogs on a private X server
# and a private session bus, driven like a person would drive them.
#
#   Tests/desktop/rig.sh test         the rig tests (Swift, *RigTests) and the bus-latency measurement
#   Tests/desktop/rig.sh screenshots  regenerate docs/screenshots/*.png
#   Tests/desktop/rig.sh measure      only the measurement, with an optimised wharf-desktop-rig
#                                     (the numbers for a bench row; `test` measures the debug build)
#
# Installs what is missing (Debian packages, through sudo when not root), builds, then runs
# session.sh in a PID namespace of its own when it can (root): whatever the rig started dies
# with it, even if a step fails or the rig is killed. session.sh also cleans up by itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
MODE=${1:-test}
SWIFT=${SWIFT:-swift}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

PACKAGES="xvfb xdotool openbox x11-utils imagemagick dbus-daemon xdg-desktop-portal xdg-desktop-portal-gtk zenity kdialog libsystemd-dev"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "rig: installing:$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

echo "rig: building"
log=$(mktemp)
if ! { nice $SWIFT build --build-tests && nice $SWIFT build --product wharf-desktop-rig; } >"$log" 2>&1; then
    cat "$log"
    rm -f "$log"
    echo "rig: the build failed" >&2
    exit 1
fi
rm -f "$log"
if [ "$MODE" = measure ]; then
    nice $SWIFT build -c release --product wharf-desktop-rig >/dev/null
    export RIGTOOL=.build/release/wharf-desktop-rig
fi

if [ "$(id -u)" = 0 ] && unshare --pid --fork --kill-child --mount-proc true 2>/dev/null; then
    exec unshare --pid --fork --kill-child --mount-proc Tests/desktop/session.sh "$MODE"
fi
exec Tests/desktop/session.sh "$MODE"
