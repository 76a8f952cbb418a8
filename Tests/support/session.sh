# Sourced by the rigs that run real desktop programs (Tests/desktop/session.sh,
# Tests/portal/run.sh, the screenshot scripts): a private session under one folder, so that
# nothing of the person's own home, desktop session or display is read or changed.
#
#   session_begin NAME      a fresh folder /tmp/NAME-XXXXXX in $SESSION_DIR, ended with the
#                           script (session_end [STATUS]: what was started stopped, the folder
#                           removed; the script's exit status, or STATUS, kept; 130 when
#                           interrupted)
#   session_home DIR        HOME and XDG_{RUNTIME,CONFIG,DATA,CACHE}_DIR made under DIR (the
#                           runtime folder mode 700, as the XDG spec asks); GTK and GSettings
#                           quiet and in memory; no session bus, Wayland or session manager of
#                           the caller's
#   session_xvfb DIR SIZE [XVFB OPTIONS...]
#                           Xvfb on a display it finds free itself (written through
#                           -displayfd when it is ready for clients), DISPLAY set to it
#   session_started PID     a process to end with the session
#   session_stop            ends them, the last started first: TERM, up to 2.5 s to go, then
#                           KILL
#   session_remove DIR      removes DIR, once a document portal the session started has let go
#                           of its mount in the runtime folder

SESSION_PIDS=()

session_begin() {
    SESSION_DIR=$(mktemp -d "/tmp/$1-XXXXXX")
    trap session_end EXIT
    trap 'exit 130' INT TERM
}

session_end() {
    local status=${1:-$?}
    session_stop
    session_remove "$SESSION_DIR"
    # SwiftPM run inside a session (the desktop rig's tests) keeps its locks beside the config
    # and cache it was given, as /tmp files named after their paths: they would stay behind.
    rm -f "/tmp/$(echo "$SESSION_DIR" | tr / _)"_*swiftpm*.lock
    exit "$status"
}

session_home() {
    local dir=$1
    export HOME=$dir/home XDG_RUNTIME_DIR=$dir/run XDG_CONFIG_HOME=$dir/config XDG_DATA_HOME=$dir/data XDG_CACHE_HOME=$dir/cache
    mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
    chmod 700 "$XDG_RUNTIME_DIR"
    export GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 GTK_A11Y=none LANG=C.UTF-8
    unset DBUS_SESSION_BUS_ADDRESS WAYLAND_DISPLAY SESSION_MANAGER GTK_USE_PORTAL
}

session_xvfb() {
    local dir=$1 size=$2 number
    shift 2
    mkfifo "$dir/display"
    Xvfb -displayfd 3 "$@" -screen 0 "$size" -nolisten tcp -noreset 3>"$dir/display" >"$dir/xvfb.log" 2>&1 &
    session_started $!
    read -r -t 60 number < "$dir/display" || { echo "Xvfb did not start:" >&2; cat "$dir/xvfb.log" >&2; return 1; }
    export DISPLAY=:$number
}

session_started() {
    SESSION_PIDS+=("$1")
}

session_stop() {
    local index pid
    # A client before the server it uses: xterm before its display, openbox before Xvfb.
    for ((index = ${#SESSION_PIDS[@]} - 1; index >= 0; index--)); do
        pid=${SESSION_PIDS[index]}
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    SESSION_PIDS=()
    wait 2>/dev/null || true
}

session_remove() {
    local dir=$1
    # The document portal xdg-desktop-portal starts mounts $XDG_RUNTIME_DIR/doc until it
    # notices the bus is gone.
    for _ in $(seq 50); do
        fusermount -u "$dir/run/doc" 2>/dev/null || true
        rm -rf "$dir" 2>/dev/null && return 0
        sleep 0.1
    done
    rm -rf "$dir"
}
