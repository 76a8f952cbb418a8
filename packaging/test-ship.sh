#!/usr/bin/env bash
# make test-ship: what a person installing Wharf gets, checked. Run by `make test-ship` after
# `make dist` has built the release binary, the .deb (lintian-checked), the wheel and the npm
# tarball.
#
#   1. make install DESTDIR=… lays out exactly packaging/install-files.txt (with their modes);
#      make uninstall leaves none of them.
#   2. The manual pages render with man and groff without a warning.
#   3. Each completion loads in its shell (bash, zsh, fish) and completes a command, an option's
#      value and a content type.
#   4. The .deb holds exactly packaging/deb-files.txt, with the server's version, Depends from
#      dpkg-shlibdeps and the Recommends asked for; dpkg -i installs it; wharf --version, the
#      manual and the demo work against /usr/bin/wharf; the shells find the completions where
#      they look; dpkg -r removes every file it installed.
#   5. The wheel and the npm tarball carry the server's version.
#
# Step 4 installs a package on this machine, so it needs root or sudo (CI runs as root on a
# disposable machine) and refuses to start without; it also refuses when a wharf is already
# installed, rather than replace it. It prints "N passed, M failed" and fails if any did.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
PYTHON=${PYTHON:-python3}

if [ "$(id -u)" = 0 ]; then
    sudo=()
elif sudo -n true 2>/dev/null; then
    sudo=(sudo)
else
    echo "test-ship installs the .deb with dpkg -i: run it as root, or where sudo needs no password." >&2
    exit 2
fi

# One test-ship at a time on a machine: they would install and remove the same package. The
# lock file is opened for reading, so whoever created it, anyone can take the lock.
lock=/tmp/wharf-test-ship.lock
touch "$lock" 2>/dev/null
exec 9<"$lock"
flock -w 900 9 || { echo "another test-ship has held the lock for 15 minutes" >&2; exit 2; }

if grep -q 'install ok installed' <<<"$(dpkg-query -W -f='${Status}' wharf 2>/dev/null)" || [ -e /usr/bin/wharf ]; then
    echo "a wharf is already installed here (/usr/bin/wharf); test-ship would replace it: remove it first (dpkg -r wharf)." >&2
    exit 2
fi

version=$(.build/release/wharf --version | awk '{print $2}')
deb=$(ls .build/deb/wharf_"$version"_*.deb)
scratch=$(mktemp -d)
installed_by_us=false
cleanup() {
    if $installed_by_us; then "${sudo[@]}" dpkg -r wharf >/dev/null 2>&1; fi
    rm -rf "$scratch"
}
trap cleanup EXIT

passed=0
failed=0
# check NAME COMMAND...: runs COMMAND, counts it, shows its output when it fails.
check() {
    local name=$1
    shift
    local output
    if output=$("$@" 2>&1); then
        passed=$((passed + 1))
        echo "ok - $name"
    else
        failed=$((failed + 1))
        echo "FAILED - $name"
        printf '%s\n' "$output" | sed 's/^/    /'
    fi
}

# same EXPECTED-FILE ACTUAL-TEXT: the two lists of paths agree, or the difference is shown.
same() { diff -u "$1" <(printf '%s\n' "$2" | sed '/^$/d' | sort); }

# offers WORD COMMAND...: COMMAND prints WORD on a line of its own.
offers() {
    local word=$1 output
    shift
    output=$("$@") || return 1
    grep -qxF -- "$word" <<<"$output" || { echo "expected $word among:"; printf '%s\n' "$output"; return 1; }
}

# lacks WORD COMMAND...: COMMAND runs and does not print WORD on a line of its own.
lacks() {
    local word=$1 output
    shift
    output=$("$@") || return 1
    ! grep -qxF -- "$word" <<<"$output" || { echo "did not expect $word among:"; printf '%s\n' "$output"; return 1; }
}

# silent COMMAND...: COMMAND succeeds and writes nothing to standard error.
silent() { local errors; errors=$("$@" 2>&1 >/dev/null) && [ -z "$errors" ] || { echo "$errors"; return 1; }; }

# dpkg, waiting while another process (an apt-get elsewhere) holds its lock.
dpkg_waiting() {
    local attempt output
    for attempt in $(seq 120); do
        if output=$("${sudo[@]}" dpkg "$@" 2>&1); then return 0; fi
        grep -qi lock <<<"$output" || { echo "$output"; return 1; }
        sleep 5
    done
    echo "$output"
    return 1
}

# MARK: 1. make install and make uninstall

tree=$scratch/install
make --no-print-directory -s install PREFIX=/usr/local DESTDIR="$tree" >/dev/null
check "make install lays out exactly packaging/install-files.txt" \
    same packaging/install-files.txt "$(cd "$tree" && find . ! -type d | sed 's/^\.//')"
modes() { [ "$(stat -c %a "$tree/usr/local/bin/wharf")" = 755 ] && ! find "$tree" -type f ! -path '*/bin/*' ! -perm 644 | grep .; }
check "the binary is 0755 and every other file 0644" modes
check "the installed wharf runs" grep -q "^wharf $version " <("$tree/usr/local/bin/wharf" --version)
static() { ! ldd "$tree/usr/local/bin/wharf" | grep -E -i 'swift|sqlite|jansson|stdc\+\+|gcc_s'; }
check "the Swift runtime, SQLite, jansson, libstdc++ and libgcc are linked in, not loaded" static
# How make release links (Makefile, packaging/README.md): full RELRO and PIE, the relocations
# packed, libsystemd loaded on first use rather than linked, and packaging/wharf.order's
# functions first in the code.
linked() {
    local dynamic
    dynamic=$(readelf -d "$tree/usr/local/bin/wharf")
    grep -q "(RELR)" <<<"$dynamic" || { echo "no packed relocations (RELR)"; return 1; }
    grep -q "(FLAGS).*BIND_NOW" <<<"$dynamic" || { echo "not bound at start (BIND_NOW)"; return 1; }
    grep -q "(FLAGS_1).*PIE" <<<"$dynamic" || { echo "not PIE"; return 1; }
    ! grep -q "libsystemd" <<<"$dynamic" || { echo "libsystemd is linked"; return 1; }
}
check "the binary is linked as make release means it: RELRO, PIE, relocations packed, no libsystemd" linked
# The first 20 functions of the order that the binary has lie within the first 256 KiB of its
# code (laid out as compiled, they are spread over megabytes).
ordered() {
    nm --defined-only .build/release/wharf | python3 -c '
import sys
text = {}
for line in sys.stdin:
    fields = line.split()
    if len(fields) == 3 and fields[1] in "tTwW":
        text.setdefault(fields[2], int(fields[0], 16))
start = min(text.values())
listed = [name for name in open("packaging/wharf.order").read().split() if name in text][:20]
if len(listed) < 20:
    sys.exit(f"only {len(listed)} of the order'"'"'s functions are in the binary")
far = [f"{name} is {text[name] - start} bytes into the code" for name in listed if text[name] - start > 262144]
sys.exit("\n".join(far) or None)
'
}
check "the functions packaging/wharf.order lists come first in the release binary's code" ordered
check "wharf.service starts the installed wharf as the daemon" \
    grep -qx "ExecStart=/usr/local/bin/wharf --listen --idle-timeout 300" "$tree/usr/local/lib/systemd/user/wharf.service"
check "wharf.socket listens on the daemon's default socket, private to the user" \
    bash -c 'grep -qx "ListenStream=%t/wharf/wharf.sock" "$1" && grep -qx "SocketMode=0600" "$1"' - "$tree/usr/local/lib/systemd/user/wharf.socket"
check "the portal backend's D-Bus service and unit start the installed wharf portal" \
    bash -c 'grep -qx "Exec=/usr/local/bin/wharf portal" "$1" && grep -qx "SystemdService=wharf-portal.service" "$1" && grep -qx "ExecStart=/usr/local/bin/wharf portal" "$2" && grep -qx "BusName=org.freedesktop.impl.portal.desktop.wharf" "$2"' - \
    "$tree/usr/local/share/dbus-1/services/org.freedesktop.impl.portal.desktop.wharf.service" "$tree/usr/local/lib/systemd/user/wharf-portal.service"
check "wharf.portal names the backend's bus name and only the FileChooser" \
    bash -c 'grep -qx "DBusName=org.freedesktop.impl.portal.desktop.wharf" "$1" && grep -qx "Interfaces=org.freedesktop.impl.portal.FileChooser;" "$1" && grep -qx "UseIn=wharf" "$1"' - \
    "$tree/usr/local/share/xdg-desktop-portal/portals/wharf.portal"
# The units' contract, with systemd's own socket activation: systemd-socket-activate listens,
# starts the installed wharf on the first connection with the socket as descriptor 3
# (LISTEN_FDS), and the daemon answers over it.
activated() {
    command -v systemd-socket-activate >/dev/null || { echo "systemd-socket-activate is missing"; return 1; }
    local socket=$scratch/activated.sock
    systemd-socket-activate -l "$socket" env XDG_STATE_HOME="$scratch/state" \
        "$tree/usr/local/bin/wharf" --listen --presenter kdialog --idle-timeout 1 2>/dev/null &
    local activator=$!
    for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.05; done
    python3 - "$socket" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rwb")
for request in ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
                {"jsonrpc": "2.0", "id": 2, "method": "ping"}):
    f.write((json.dumps(request) + "\n").encode()); f.flush()
    answer = json.loads(f.readline())
    assert "result" in answer, answer
PY
    local status=$?
    kill "$activator" 2>/dev/null; wait "$activator" 2>/dev/null
    return $status
}
check "the installed wharf serves a socket systemd passes it (systemd-socket-activate)" activated
make --no-print-directory -s uninstall PREFIX=/usr/local DESTDIR="$tree" >/dev/null
check "make uninstall removes every file install laid out" same /dev/null "$(cd "$tree" && find . ! -type d | sed 's/^\.//')"
check "make uninstall removes share/doc/wharf" test ! -e "$tree/usr/local/share/doc/wharf"
make --no-print-directory -s install PREFIX=/usr/local DESTDIR="$tree" >/dev/null

# MARK: 2. The manual pages

for page in man1/wharf.1 man7/wharf-protocol.7; do
    file=$tree/usr/local/share/man/$page
    check "$page renders with man --warnings at 80 columns without a warning" \
        silent env MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l "$file"
    check "$page renders with groff -ww (all warnings) without one" silent groff -ww -z -man "$file"
    check "$page renders with groff -ww for a terminal without one" silent groff -ww -z -man -Tutf8 "$file"
done
check "wharf.1 has the synopsis and every section" \
    bash -c 'MANWIDTH=80 man -l "$1" 2>/dev/null | grep -c -e "^SYNOPSIS" -e "^OPTIONS" -e "^COMMANDS" -e "^EXIT STATUS" -e "^ENVIRONMENT" -e "^FILES" -e "^SEE ALSO" | grep -qx 7' - \
    "$tree/usr/local/share/man/man1/wharf.1"
check "wharf-protocol.7 has the protocol's sections" \
    bash -c 'MANWIDTH=80 man -l "$1" 2>/dev/null | grep -c -e "^BASE PROTOCOL" -e "^LIFECYCLE" -e "^DIALOGS" -e "^ACCESS" -e "^ERROR CODES" | grep -qx 5' - \
    "$tree/usr/local/share/man/man7/wharf-protocol.7"

# MARK: 3. The completions, each in its shell

bash_script=$tree/usr/local/share/bash-completion/completions/wharf
zsh_directory=$tree/usr/local/share/zsh/site-functions
fish_script=$tree/usr/local/share/fish/vendor_completions.d/wharf.fish
fish_home=$scratch/fish-home
mkdir -p "$fish_home"
fish_complete() { HOME=$fish_home fish --no-config -c "source $1; complete -C '$2'" | cut -f1; }
zsh_complete() { timeout 60 zsh -f packaging/tests/complete.zsh "$1" "$2"; }

check "bash: complete -p wharf, and 'wharf ty' completes to types" offers types bash packaging/tests/complete.bash "$bash_script" "wharf ty"
check "bash: 'wharf types ' offers conforms" offers conforms bash packaging/tests/complete.bash "$bash_script" "wharf types "
check "bash: 'wharf --framing ' offers ndjson" offers ndjson bash packaging/tests/complete.bash "$bash_script" "wharf --framing "
check "bash: 'wharf --presenter ' offers script:" offers script: bash packaging/tests/complete.bash "$bash_script" "wharf --presenter "
check "bash: 'wharf types conforms public.pn' offers public.png" offers public.png bash packaging/tests/complete.bash "$bash_script" "wharf types conforms public.pn"
check "zsh: 'wharf ty' completes to types" offers types zsh_complete "$zsh_directory" "wharf ty"
check "zsh: 'wharf access ' offers revoke" offers revoke zsh_complete "$zsh_directory" "wharf access "
check "zsh: 'wharf --log-level ' offers debug" offers debug zsh_complete "$zsh_directory" "wharf --log-level "
check "zsh: 'wharf types describe public.jp' offers public.jpeg" offers public.jpeg zsh_complete "$zsh_directory" "wharf types describe public.jp"
check "fish: 'wharf ty' completes to types" offers types fish_complete "$fish_script" "wharf ty"
check "fish: 'wharf types identify --' offers --no-sniff" offers --no-sniff fish_complete "$fish_script" "wharf types identify --"
check "fish: 'wharf --framing ' offers lsp" offers lsp fish_complete "$fish_script" "wharf --framing "
check "fish: 'wharf types conforms public.pn' offers public.png" offers public.png fish_complete "$fish_script" "wharf types conforms public.pn"
# The parser takes a command only as the first word (`wharf --log-level debug pick` is refused):
# after an option, no shell offers one.
check "bash: 'wharf --log-level debug ' offers no command" lacks pick bash packaging/tests/complete.bash "$bash_script" "wharf --log-level debug "
check "zsh: 'wharf --log-level debug ' offers no command" lacks pick zsh_complete "$zsh_directory" "wharf --log-level debug "
check "fish: 'wharf --log-level debug ' offers no command" lacks pick fish_complete "$fish_script" "wharf --log-level debug "

# MARK: 4. The Debian package

field() { dpkg-deb -f "$deb" "$1"; }
check "the package has exactly packaging/deb-files.txt" \
    same packaging/deb-files.txt "$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's/^\.//')"
check "the package's version is the server's ($version)" test "$(field Version)" = "$version"
check "Depends names the C library, from dpkg-shlibdeps, and no library linked in statically" \
    bash -c 'grep -q "\blibc6\b" <<<"$1" && ! grep -E "libjansson|libsqlite3|libstdc\+\+" <<<"$1" || { echo "Depends: $1"; exit 1; }' - "$(field Depends)"
check "Recommends: xdg-desktop-portal, zenity" test "$(field Recommends)" = "xdg-desktop-portal, zenity"
check "Suggests: fzf, lf, nnn, ranger, vifm" test "$(field Suggests)" = "fzf, lf, nnn, ranger, vifm"
check "files are owned by root" bash -c '! dpkg-deb -c "$1" | awk "{print \$2}" | grep -v "^root/root$"' - "$deb"
check "lintian reports nothing the overrides do not explain" lintian --allow-root --fail-on error,warning,info "$deb"

# Which of the package's paths exist before it is installed: those must exist after it is
# removed, and no others.
mapfile -t paths < <(dpkg-deb -c "$deb" | awk '{print $6}' | sed -e 's/^\.//' -e 's:/$::' | grep .)
existing=()
for path in "${paths[@]}"; do [ -e "$path" ] && existing+=("$path"); done

installed_by_us=true
check "dpkg -i installs the package" dpkg_waiting -i "$deb"
check "/usr/bin/wharf --version says $version" grep -q "^wharf $version " <(/usr/bin/wharf --version)
check "the demo runs against /usr/bin/wharf" "$PYTHON" clients/python/examples/demo.py /usr/bin/wharf
check "man finds wharf(1) and wharf-protocol(7)" bash -c 'man -w wharf && man -w 7 wharf-protocol'
check "bash-completion loads wharf's completion on demand" \
    bash -c 'source /usr/share/bash-completion/bash_completion && _completion_loader wharf; complete -p wharf'
check "zsh finds _wharf on its default fpath" offers types zsh_complete "$scratch/empty" "wharf ty"
check "fish finds wharf.fish among its vendor completions" \
    offers types bash -c 'HOME=$1 fish -c "complete -C \"wharf ty\"" | cut -f1' - "$fish_home"
dpkg -L wharf | sort > "$scratch/listed"
check "dpkg -L lists what the package holds" diff -u <(printf '%s\n' /. "${paths[@]}" | sort -u) <(sort -u "$scratch/listed")

check "dpkg -r removes the package" dpkg_waiting -r wharf && installed_by_us=false
left() {
    local path status=0
    for path in $(cat "$scratch/listed"); do
        [ -e "$path" ] || [ -L "$path" ] || continue
        # A here-string, not a pipe: under pipefail, grep -q leaving at its first match could
        # fail printf with SIGPIPE, and a directory that stayed would count as left behind.
        if [ -d "$path" ] && grep -qxF -- "$path" <<<"$(printf '%s\n' "${existing[@]}" / /.)"; then continue; fi
        echo "left behind: $path"
        status=1
    done
    return $status
}
check "dpkg -r removes every file and directory it installed" left

# MARK: 5. The clients

check "the wheel is wharf_client $version" \
    "$PYTHON" -c 'import sys, zipfile; w = zipfile.ZipFile(sys.argv[1]); m = w.read(f"wharf_client-{sys.argv[2]}.dist-info/METADATA").decode(); assert f"\nVersion: {sys.argv[2]}\n" in m; assert "wharf_client/py.typed" in w.namelist()' \
    ".build/dist/wharf_client-$version-py3-none-any.whl" "$version"
check "the npm tarball is wharf-client $version" \
    bash -c 'tar -xOzf "$1" package/package.json | grep -q "\"version\": \"$2\"" && tar -tzf "$1" | grep -qx package/index.d.ts' - \
    ".build/dist/wharf-client-$version.tgz" "$version"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
