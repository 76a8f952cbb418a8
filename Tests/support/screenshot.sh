# Sourced by the scripts that retake a screenshot of a terminal (Tests/terminal/screenshots.sh,
# clients/nvim/docs/screenshot.sh and serve-screenshot.sh): a tmux session drawn by xterm on an
# Xvfb display and captured with ImageMagick's `import`, usually over a sample folder. Each
# script keeps its own scenario: what runs in the session and which keys it is sent.
#
#   shot_install [PACKAGES...]   installs from Debian what is missing: Xvfb, xterm, ImageMagick,
#                                tmux, DejaVu Sans Mono, and PACKAGES
#   shot_begin                   $SHOT_WORK, a scratch folder removed at exit with everything
#                                started (session.sh's session_started); $SHOT_HOME the home
#                                there
#   shot_harbor                  the sample folder $SHOT_HARBOR in that home ("harbor": three
#                                folders and six files)
#   shot_display                 Xvfb on $SHOT_DISPLAY (":N") when it is set, else on a display
#                                it finds free (then in SHOT_DISPLAY)
#   shot_session DIR COLUMNS ROWS COMMAND
#                                (re)starts the tmux session "shot", COLUMNS by ROWS, running
#                                COMMAND in DIR with nothing of the caller's environment but PATH
#   shot_keys KEYS...            sends keys (tmux key names), then lets the screen settle
#   shot_text TEXT               types TEXT as it is, then lets the screen settle
#   shot_screen                  the session's screen as text
#   shot_capture OUT.png [XTERM OPTIONS...]
#                                shows the session in xterm on the display (started if it is not
#                                yet) and writes its window to OUT.png

SHOT_SUPPORT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$SHOT_SUPPORT/session.sh"

shot_install() {
    local need="" sudo=""
    command -v Xvfb >/dev/null || need="$need xvfb"
    command -v xterm >/dev/null || need="$need xterm"
    command -v import >/dev/null || need="$need imagemagick"
    command -v tmux >/dev/null || need="$need tmux"
    [ -e /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || need="$need fonts-dejavu-core"
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || need="$need $package"
    done
    [ -n "$need" ] || return 0
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 $need >/dev/null
}

shot_begin() {
    session_begin wharf-shot
    SHOT_WORK=$SESSION_DIR
    SHOT_SOCKET="$SHOT_WORK/tmux.sock"
    SHOT_HOME="$SHOT_WORK/home"
    SHOT_XVFB=""
    trap shot_end EXIT
    mkdir -p "$SHOT_HOME/.config"
}

shot_harbor() {
    SHOT_HARBOR="$SHOT_HOME/harbor"
    mkdir -p "$SHOT_HARBOR/docs" "$SHOT_HARBOR/src" "$SHOT_HARBOR/assets"
    printf '# Harbor\n' > "$SHOT_HARBOR/README.md"
    printf 'Buy rope.\nPaint the hull.\n' > "$SHOT_HARBOR/notes.txt"
    printf '# Plan\n' > "$SHOT_HARBOR/plan.md"
    printf 'ok\n' > "$SHOT_HARBOR/build.log"
    printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' > "$SHOT_HARBOR/logo.png"
    printf '%%PDF-1.4\n' > "$SHOT_HARBOR/manual.pdf"
}

shot_end() {
    local status=$?
    tmux -S "$SHOT_SOCKET" kill-server 2>/dev/null || true
    session_end "$status"
}

shot_display() {
    local number
    if [ -n "${SHOT_DISPLAY:-}" ]; then
        [ ! -e "/tmp/.X11-unix/X${SHOT_DISPLAY#:}" ] || { echo "display $SHOT_DISPLAY is taken" >&2; return 1; }
        Xvfb "$SHOT_DISPLAY" -screen 0 1400x900x24 -nolisten tcp >"$SHOT_WORK/xvfb.log" 2>&1 &
        session_started $!
        for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${SHOT_DISPLAY#:}" ] && break; sleep 0.1; done
    else
        mkfifo "$SHOT_WORK/display"
        Xvfb -displayfd 3 -screen 0 1400x900x24 -nolisten tcp 3>"$SHOT_WORK/display" >"$SHOT_WORK/xvfb.log" 2>&1 &
        session_started $!
        read -r -t 60 number < "$SHOT_WORK/display" || { echo "Xvfb did not start:" >&2; cat "$SHOT_WORK/xvfb.log" >&2; return 1; }
        SHOT_DISPLAY=":$number"
    fi
    SHOT_XVFB=started
}

shot_session() {
    local dir=$1 columns=$2 rows=$3 command=$4
    tmux -S "$SHOT_SOCKET" kill-server 2>/dev/null || true
    sleep 0.2
    SHOT_COLUMNS=$columns SHOT_ROWS=$rows
    env -i PATH="$PATH" HOME="$SHOT_HOME" TERM=xterm-256color LANG=C.UTF-8 \
        tmux -S "$SHOT_SOCKET" -f /dev/null new-session -d -s shot -x "$columns" -y "$rows" "cd '$dir' && $command"
    tmux -S "$SHOT_SOCKET" set -g status off >/dev/null
    # 24-bit colour through to xterm, for what draws with it (Neovim with termguicolors).
    tmux -S "$SHOT_SOCKET" set -ga terminal-overrides ',xterm*:Tc' >/dev/null
    sleep 1
}

shot_keys() {
    tmux -S "$SHOT_SOCKET" send-keys -t shot "$@"
    sleep 0.3
}

shot_text() {
    tmux -S "$SHOT_SOCKET" send-keys -t shot -l "$1"
    sleep 0.3
}

shot_screen() {
    tmux -S "$SHOT_SOCKET" capture-pane -p -t shot
}

shot_capture() {
    local out=$1
    shift
    [ -n "$SHOT_XVFB" ] || shot_display
    # The font and colours of every screenshotted xterm (the portal's too); the size is the session's.
    DISPLAY="$SHOT_DISPLAY" XENVIRONMENT="$SHOT_SUPPORT/xterm-screenshot.ad" \
        xterm -T wharf-shot -geometry "${SHOT_COLUMNS}x${SHOT_ROWS}+0+0" -b 0 -xrm 'XTerm*directColor: true' "$@" \
        -e env TERM=xterm-256color tmux -S "$SHOT_SOCKET" attach -t shot &
    session_started $!
    sleep 2
    DISPLAY="$SHOT_DISPLAY" import -window wharf-shot "$out"
}
