# Helpers for the end-to-end tests: the real dashboard in a private tmux server, driven with
# send-keys and read back with capture-pane, as a person at a terminal would see it.
# Source it instead of lib.sh (it sources lib.sh: private state dir, assertions, cleanup).
. "$(dirname "$0")/../lib.sh"

command -v tmux >/dev/null || {
    echo "FAIL - the end-to-end tests need tmux"
    exit 1
}

# python3 through a version manager's shim (pyenv) costs seconds a call on a busy machine, and
# the helpers call it in polling loops: call the interpreter itself.
PYTHON3=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -x "$PYTHON3" ] && python3() { "$PYTHON3" "$@"; }

export LC_ALL=C.UTF-8 # one character per column when counting, in grep, awk and python
TMUX_SOCKET=sandman-e2e-$TEST_NAME-$$
DASH=dash
SCREEN=

tm() { tmux -L "$TMUX_SOCKET" "$@"; }

# new_session ARGS...: tm new-session, and the server stays when its last session is killed (by
# default it exits then, and a session started right after the kill races with that exit:
# "server exited unexpectedly"). tmux_cleanup kills it at the end.
new_session() { tm new-session "$@" && tm set-option -s exit-empty off; }

# The tmux server goes first (the dashboard ends with it), then the sandboxes and the state dir.
tmux_cleanup() {
    tm kill-server >/dev/null 2>&1
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$TMUX_SOCKET" # tmux 3.3 leaves it behind
    cleanup
}
trap tmux_cleanup EXIT

# dash_start [-x COLS] [-y ROWS] [-e VAR=VALUE]... [SANDMAN ARGS...]: starts the dashboard in a
# fresh tmux session. When it exits, the pane shows "EXIT=<status>" and stays open.
dash_start() {
    local cols=160 rows=40 envs=()
    while [ $# -gt 0 ]; do
        case $1 in
        -x) cols=$2; shift 2 ;;
        -y) rows=$2; shift 2 ;;
        -e) envs+=("$2"); shift 2 ;;
        *) break ;;
        esac
    done
    local cmd
    cmd=$(printf '%q ' env TERM=xterm-256color LC_ALL=C.UTF-8 SANDMAN_INTERVAL=0.5 \
        "SANDMAN_STATE_DIR=$SANDMAN_STATE_DIR" "SANDMAN_SUPERVISOR=${SANDMAN_SUPERVISOR:-}" \
        "XDG_CONFIG_HOME=$XDG_CONFIG_HOME" "${envs[@]}" "$SANDMAN" "$@")
    tm kill-session -t "$DASH" >/dev/null 2>&1
    new_session -d -s "$DASH" -x "$cols" -y "$rows" "$cmd; echo EXIT=\$?; sleep 600"
}

# screen: the visible text of the pane; screen_sgr: the same with the SGR attribute escapes.
screen() { tm capture-pane -t "$DASH" -p; }
screen_sgr() { tm capture-pane -t "$DASH" -p -e; }

# pane FORMAT: a tmux format of the pane, e.g. pane "#{pane_width}x#{pane_height}".
pane() { tm display -p -t "$DASH" "$1"; }

# keys KEY...: tmux key names (Enter, Escape, Space, Tab, Up) or text; text ARG: literal text.
keys() { tm send-keys -t "$DASH" "$@"; }
text() { tm send-keys -t "$DASH" -l "$1"; }

# resize COLS ROWS
resize() { tm resize-window -t "$DASH" -x "$1" -y "$2"; }

show_screen() {
    echo "# --- the screen ($(pane '#{pane_width}x#{pane_height}')) ---"
    printf '%s\n' "$SCREEN" | sed 's/^/# |/'
}

# wait_for REGEX [SECONDS]: polls the screen every 0.2 s until a line matches the extended
# regex; leaves the screen in SCREEN. On timeout prints the last screen and fails.
wait_for() {
    local end=$(($(date +%s%N) / 1000000 + ${2:-10} * 1000))
    while :; do
        SCREEN=$(screen)
        printf '%s\n' "$SCREEN" | grep -Eq -- "$1" && return 0
        [ $(($(date +%s%N) / 1000000)) -ge "$end" ] && break
        sleep 0.2
    done
    echo "# waited ${2:-10}s for /$1/"
    show_screen
    return 1
}

# wait_gone REGEX [SECONDS]: the opposite: until no line matches.
wait_gone() {
    local end=$(($(date +%s%N) / 1000000 + ${2:-10} * 1000))
    while :; do
        SCREEN=$(screen)
        printf '%s\n' "$SCREEN" | grep -Eq -- "$1" || return 0
        [ $(($(date +%s%N) / 1000000)) -ge "$end" ] && break
        sleep 0.2
    done
    echo "# waited ${2:-10}s for /$1/ to go away"
    show_screen
    return 1
}

# wait_until SECONDS COMMAND...: polls a predicate (which may read SCREEN after `SCREEN=$(screen)`)
wait_until() {
    local end=$(($(date +%s%N) / 1000000 + $1 * 1000))
    shift
    while :; do
        SCREEN=$(screen)
        "$@" && return 0
        [ $(($(date +%s%N) / 1000000)) -ge "$end" ] && break
        sleep 0.2
    done
    echo "# waited for: $*"
    show_screen
    return 1
}

# Predicates for wait_until, so that a check waits for the state it asserts rather than for
# another part of the same frame (a frame may be caught half drawn, the more so under load):
# screen_has REGEX: a line of SCREEN matches; output_is EXPECTED COMMAND...: the command (which
# reads SCREEN, as shown_ids or row) prints EXPECTED.
screen_has() { printf '%s\n' "$SCREEN" | grep -Eq -- "$1"; }
output_is() {
    local want=$1
    shift
    [ "$("$@")" = "$want" ]
}

# line N: line N (1-based) of SCREEN.
line() { printf '%s\n' "$SCREEN" | sed -n "${1}p"; }

# line_matches N REGEX: a predicate for wait_until (a frame may be caught half drawn).
line_matches() { line "$1" | grep -Eq -- "$2"; }

# row ID: the list row of that sandbox in SCREEN (empty when not shown).
row() { printf '%s\n' "$SCREEN" | grep -E "^(  |[^ ] )$1" | head -1; }

# cell TITLE ID: the text of the column titled TITLE in the row of ID, read at the title's
# position on the column title line (CPU% and PIDS are right-aligned; FAILURE runs to the end).
cell() {
    printf '%s\n' "$SCREEN" | python3 -c '
import sys
title, sid = sys.argv[1], sys.argv[2]
lines = sys.stdin.read().split("\n")
head = next((l for l in lines if " ID " in l and "STATUS" in l), None)
row = next((l for l in lines if l[2:14] == sid[:12]), None)
if head is None or row is None:
    print("<no row of %s>" % sid)
    sys.exit(1)
start = head.index(title)
if title in ("CPU%", "PIDS"):  # right-aligned: the column ends where its title ends
    end = start + len(title)
    start = end - 6 if title == "CPU%" else end - 5
    print(row[start:end].strip())
else:
    rest = head[start + len(title):]
    nxt = len(rest) - len(rest.lstrip(" "))
    end = None if title == "FAILURE" else start + len(title) + nxt - 1
    print(row[start:end].strip())
' "$1" "$2"
}

# list_ids: the sandbox ids of the list rows in SCREEN, top to bottom.
list_ids() { printf '%s\n' "$SCREEN" | sed -En 's/^(  |[^ ] )([0-9a-f]{12}) .*/\2/p'; }
# shown_ids: the same on one line, separated by spaces.
shown_ids() { list_ids | paste -sd ' '; }

# lines_fit COLS: every line of SCREEN is at most COLS characters wide.
lines_fit() {
    printf '%s\n' "$SCREEN" | python3 -c '
import sys
sys.exit(any(len(l) > int(sys.argv[1]) for l in sys.stdin.read().split("\n")))' "$1"
}

# ---- terminals: the dashboard's embedded panes and `sandman shell` -----------------------

# run_in_tmux [-x COLS] [-y ROWS] COMMAND-LINE: like dash_start, for a shell command line (it may
# use $SANDMAN, e.g. "stty -a >f; \"\$SANDMAN\" shell ID"), in the session the other helpers
# read, with the dashboard's environment. Afterwards the pane shows EXIT=<status>.
run_in_tmux() {
    local cols=160 rows=40
    while [ $# -gt 0 ]; do
        case $1 in
        -x) cols=$2; shift 2 ;;
        -y) rows=$2; shift 2 ;;
        *) break ;;
        esac
    done
    local envs
    envs=$(printf '%q ' TERM=xterm-256color LC_ALL=C.UTF-8 SANDMAN_INTERVAL=0.5 \
        "SANDMAN_STATE_DIR=$SANDMAN_STATE_DIR" "SANDMAN_SUPERVISOR=${SANDMAN_SUPERVISOR:-}" \
        "XDG_CONFIG_HOME=$XDG_CONFIG_HOME" "SANDMAN=$SANDMAN")
    tm kill-session -t "$DASH" >/dev/null 2>&1
    new_session -d -s "$DASH" -x "$cols" -y "$rows" "export $envs; $1; echo EXIT=\$?; sleep 600"
}

# prompt_re ID: the sandbox shell's prompt at the end of a line (root@sbx-<first 8 of the id>).
prompt_re() { printf '@sbx-%s:[^ ]*# *$' "${1:0:8}"; }

# wait_prompt ID: waits for the prompt of a shell in that sandbox starting. The shell is a login
# shell in the host's image, whose profile alone may take seconds on a busy machine.
wait_prompt() { wait_for "$(prompt_re "$1")" 30; }

# type_line TEXT: types TEXT and Enter into the terminal.
type_line() {
    text "$1"
    keys Enter
}

# has_lines REGEX...: some consecutive lines of SCREEN match the (Python) regexes, one each,
# in order. For what must be seen together, e.g. a command line and the prompt after it:
# check "..." has_lines "^\\$ ls$" "^\\$ $", or wait_until 10 has_lines ...
has_lines() {
    printf '%s\n' "$SCREEN" | python3 -c '
import re, sys
lines, pats = sys.stdin.read().split("\n"), sys.argv[1:]
sys.exit(not any(all(re.search(p, lines[i + k]) for k, p in enumerate(pats))
                 for i in range(len(lines) - len(pats) + 1)))' "$@"
}

# trim: drops trailing spaces of each line and trailing empty lines, to compare screens.
trim() { sed -e 's/ *$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }

# replay_screen [-e] CAST: the final screen of an asciicast v2 recording, as tmux shows it: the
# output events are concatenated into a file that is cat into a fresh tmux window of the
# recording's size (tmux is the oracle for the live screen and the replay alike; its answers
# to the program's queries, such as cursor position reports, are not echoed). Prints the
# visible text, trimmed (with -e: with the SGR escapes, as screen_sgr); fails on a file that is
# not asciicast v2 or has resize events.
replay_screen() {
    local raw=$SANDMAN_STATE_DIR/replay.raw size sgr=
    [ "$1" = -e ] && sgr=-e && shift
    size=$(python3 - "$1" "$raw" <<'PY'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
head = json.loads(lines[0])
assert head["version"] == 2, "not asciicast v2"
with open(sys.argv[2], "w", encoding="utf-8", newline="") as out:
    for l in lines[1:]:
        t, kind, data = json.loads(l)
        assert kind == "o", "only output events are replayed here, not " + kind
        out.write(data)
print(head["width"], head["height"])
PY
    ) || return 1
    set -- $size
    tm kill-session -t replay >/dev/null 2>&1
    new_session -d -s replay -x "$1" -y "$2" \
        "stty -echo; cat $(printf %q "$raw"); tmux -L $TMUX_SOCKET wait-for -S replayed; sleep 600"
    timeout 10 tmux -L "$TMUX_SOCKET" wait-for replayed || return 1
    sleep 0.3
    tm capture-pane -t replay -p $sgr | trim
    tm kill-session -t replay
}
