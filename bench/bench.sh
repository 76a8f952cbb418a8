#!/usr/bin/env bash
# `make bench`: builds Wharf in release mode, the C load driver, the C floor peer and the Python
# peers' virtual environment, then runs bench/run.py, which rewrites bench/README.md.
#
# Environment: BENCH_REPEAT (repetitions, default 5), BENCH_QUICK=1 (small workloads, to check
# the harness), BENCH_ARGS (more arguments for bench/run.py, e.g. --no-callgrind).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
missing=""
for package in gcc pkg-config valgrind python3-venv emacs-nox tmux; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
if [ -n "$missing" ]; then
    echo "installing:$missing" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

echo "• building wharf (release, as make release builds and make deb ships it)" >&2
make release >&2
echo "• building wharf (release, shared Swift runtime, for comparison)" >&2
swift build -c release --product wharf --scratch-path .build/shared >&2

echo "• building the test suite (the soak runs under valgrind)" >&2
swift build --build-tests >&2

out=bench/out
mkdir -p "$out"
echo "• building the load driver and the C floor" >&2
cc -O2 -Wall -Wextra -o "$out/wharf-load" bench/driver/wharf-load.c -lpthread
cc -O2 -Wall -Wextra -o "$out/c-ping-server" bench/peers/c-jansson/ping-server.c $(pkg-config --cflags --libs jansson)

venv=bench/.venv
if [ ! -f "$venv/.installed" ] || [ bench/peers/python/requirements.txt -nt "$venv/.installed" ]; then
    echo "• installing the Python peers into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r bench/peers/python/requirements.txt
    touch "$venv/.installed"
fi

quick=()
[ "${BENCH_QUICK:-0}" = 1 ] && quick=(--quick)
# shellcheck disable=SC2086
exec python3 bench/run.py \
    --wharf .build/release/wharf \
    --wharf-shared .build/shared/release/wharf \
    --driver "$out/wharf-load" \
    --c-peer "$out/c-ping-server" \
    --python "$venv/bin/python" \
    --repeat "${BENCH_REPEAT:-5}" \
    "${quick[@]}" ${BENCH_ARGS:-}
