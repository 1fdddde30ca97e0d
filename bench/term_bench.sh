#!/bin/sh
# Benchmark of the dashboard's embedded terminal (the issue's figures), each beside tmux measured
# in the same run:
#  - throughput: `cat` of a generated 50 MB stream of mixed text and escape sequences (SGR 16/256/
#    RGB colours, bold/underline, cursor moves, erase-line, wide UTF-8, long wrapping lines) in a
#    terminal pane of the real dashboard (build/sandman, `t` into a local sandbox), from Enter
#    until the line echoed after it is on the screen; beside the same stream in a nested tmux
#    (a tmux client in a pane of the same size, its window the size of the dashboard's pane).
#    Both run inside an outer tmux of the same size, which stands for the user's terminal.
#    Interleaved runs, medians; target: sandman's throughput >= tmux's.
#  - scrolling floods: `seq 1 300000`, `yes | head -n 1000000` and `cat` of a 100000-line log (10 MB)
#    (every line scrolls the screen, none wraps) in the same panes, interleaved the same way;
#    target: sandman's lines/s >= the nested tmux's (the issue's; stretch 2x).
#  - input latency: keypress to echoed character at a bash prompt in one terminal while a second
#    one (another tab) is flooded; beside the same in the nested tmux (flood in another window)
#    and in a plain tmux pane (the floor: the probe, a pty and bash's echo, no layer between).
#    Keys go in with send-keys and the echo is found by polling capture-pane (both over one
#    tmux control-mode client, ~0.5 ms per poll), so the floor is the measuring overhead;
#    target: sandman's median minus the floor's < 10 ms (raw figures printed too).
# Prints machine facts, load before and after, a table with ratios and PASS/FAIL, writes
# $BUILD/bench/term_bench.json (raw samples in $BUILD/bench/term_bench.samples/), and removes its sandbox, tmux servers and files on every exit.
# Exit 0 = every target met, 1 = a target missed, 2 = an error.
#
# usage: bench/term_bench.sh [BUILD] [-s MB] [-n RUNS] [-k SAMPLES] [-m PARTS]
#   (defaults: build 50 3 50 mixed,floods,latency; -m picks the parts to run, e.g. -m floods)
set -eu

cd "$(dirname "$0")/.."
BUILD=${1:-build}
[ $# -gt 0 ] && shift
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
MB=50 RUNS=3 SAMPLES=50 PARTS=mixed,floods,latency
while [ $# -gt 0 ]; do
    case $1 in
    -s) MB=$2; shift 2 ;;
    -n) RUNS=$2; shift 2 ;;
    -k) SAMPLES=$2; shift 2 ;;
    -m) PARTS=$2; shift 2 ;;
    *) echo "usage: term_bench.sh [BUILD] [-s MB] [-n RUNS] [-k SAMPLES] [-m mixed,floods,latency]" >&2; exit 2 ;;
    esac
done
SANDMAN=$BUILD/sandman
TOOL="python3 $PWD/bench/term_tool.py"
W=200 H=50                 # the outer terminal (the user's) for both sides
PH=$((H - 3)) PW=$W        # the dashboard's terminal pane: 2 header lines and a footer taken
FLOOD_TEXT='flood line with some text'

fail() { echo "term_bench: $*" >&2; exit 2; }
part() { case ",$PARTS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
for p in $(echo "$PARTS" | tr , ' '); do
    case $p in mixed | floods | latency) ;; *) fail "-m: unknown part '$p' (allowed: mixed, floods, latency)" ;; esac
done
[ -x "$SANDMAN" ] || fail "$SANDMAN is not built (make -C build)"
for tool in tmux python3 bash; do
    command -v "$tool" >/dev/null || fail "needs $tool"
done

# A directory the sandbox can read (the local provider's default image is the host root,
# read-only, with a private /tmp): the stream and the flood switches live there.
SCR=$(mktemp -d /var/tmp/sandman-term-bench.XXXXXX)
chmod 755 "$SCR"
mkdir -p "$SCR/state" "$SCR/home"
export SANDMAN_STATE_DIR="$SCR/state"
export SANDMAN_SUPERVISOR="${SANDMAN_SUPERVISOR:-$BUILD/sandman-supervisor}"
unset SANDMAN_CONFIG TMUX
ID=
SERVERS="sm tx in fl"      # dashboard's outer tmux, nested baseline outer/inner, floor

# shellcheck disable=SC2317 # called by the trap
cleanup() {
    set +e # every step runs, whatever failed before
    for s in $SERVERS; do
        [ -S "$SCR/$s.sock" ] && tmux -S "$SCR/$s.sock" kill-server 2>/dev/null
    done
    [ -z "$ID" ] || "$SANDMAN" rm "$ID" >/dev/null 2>&1 || true
    left=$("$SANDMAN" ls -aq 2>/dev/null || true)
    # shellcheck disable=SC2086 # one word per id
    [ -z "$left" ] || "$SANDMAN" rm $left >/dev/null 2>&1 || true
    rm -rf "$SCR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t() { s=$1; shift; tmux -u -S "$SCR/$s.sock" -f /dev/null "$@"; }
cpu_of() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; } # ticks, any comm
TCK=$(getconf CLK_TCK)
median() { sort -n | awk '{v[NR]=$1} END {if (NR==0) print -1; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
p90() { sort -n | awk '{v[NR]=$1} END {k=int(NR*0.9+0.999999); if (k<1) k=1; print (NR ? v[k] : -1)}'; }

# Starts a tmux server (SERVER SESSION WIDTH HEIGHT [COMMAND]) with the dashboard's scrollback
# (TUI_TERM_SCROLLBACK) as history, no status line, the TERM the dashboard gets, and bash without
# rc files (nor history file) as the shell; the options are set from a first session of the same
# size (tmux 3.3a crashes on them in a -f file). Sessions keep their -x/-y size: only control
# clients attach to them, and those do not size windows.
server() {
    s=$1 name=$2 w=$3 h=$4
    shift 4
    t "$s" new-session -d -s boot -x "$w" -y "$h" \; set -g history-limit 10000 \
        \; set -g status off \; set -g default-terminal xterm-256color \
        \; set -g default-command "exec env -u TMUX HOME=$SCR/home HISTFILE= bash --norc --noprofile" \
        \; new-session -d -s "$name" -x "$w" -y "$h" "$@" \; kill-session -t boot
}
ENVS="TERM=xterm-256color LANG=${LANG:-C.UTF-8} HOME=$SCR/home XDG_CONFIG_HOME=$SCR/home/.config"

# ---- machine facts --------------------------------------------------------------------------
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)), $(uname -sr), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
echo "tools: $(tmux -V), libvterm $(pkg-config --modversion vterm 2>/dev/null || echo ?), ncurses $(pkg-config --modversion ncursesw 2>/dev/null || echo ?), $(python3 --version)"
echo "load before: $LOAD0"

# ---- the stream, the sandbox, the three sides -----------------------------------------------
part mixed || MB=1 # the stream is still made (the sandbox check reads it), small
BYTES=$($TOOL gen "$SCR/stream" $((MB * 1000000)) 1) || fail "cannot generate the stream"
LOG_LINES=100000
$TOOL genlog "$SCR/log" $LOG_LINES 1 >/dev/null || fail "cannot generate the log"
ID=$("$SANDMAN" create) || fail "cannot create a sandbox"
seen=$("$SANDMAN" exec "$ID" "wc -c < $SCR/stream" 2>/dev/null | tr -d ' \r\n')
[ "$seen" = "$BYTES" ] || fail "the sandbox cannot read $SCR/stream ($seen of $BYTES bytes)"
echo "stream: $BYTES bytes (seed 1): $(tr -cd '\033' <"$SCR/stream" | wc -c) escape sequences, $(tr -cd '\n' <"$SCR/stream" | wc -l) lines"

# The dashboard, in an outer tmux of W x H.
# shellcheck disable=SC2086 # ENVS is a list of words
server sm dash $W $H "exec env -u SANDMAN_CONFIG $ENVS SANDMAN_STATE_DIR=$SCR/state $SANDMAN 2>$SCR/dash.err"
SM_PID=$(t sm list-panes -t dash -F '#{pane_pid}')
SM_SRV=$(t sm display-message -p -t dash '#{pid}')
$TOOL wait "$SCR/sm.sock" dash "$ID" 20 || fail "the dashboard does not list $ID (see $SCR/dash.err)"
t sm send-keys -t dash t
# a marker printed through the pane also tells its size
ready() { # SERVER TARGET NAME: the pane runs commands and has the expected size
    $TOOL through "$SCR/$1.sock" "$2" "echo SZ_\$(stty size | tr \" \" x)_OK" "SZ_${PH}x${PW}_OK" 30 \
        "session lost" >/dev/null || fail "$3: no shell of ${PW}x$PH (screen: $(t "$1" capture-pane -p -t "$2" | grep -v '^ *$' | tail -n 3))"
}
$TOOL wait "$SCR/sm.sock" dash "3 $(echo "$ID" | cut -c1-8)" 20 || fail "no terminal pane opened"
sleep 0.5
ready sm dash "sandman terminal pane"

# The baseline: an inner tmux server with a PW x PH window, its client in an outer tmux of W x H.
server in inner $PW $PH
t in new-window -d -t inner:9
# its windows keep PW x PH under a client of W x H (window-size manual, set once they exist:
# tmux 3.3a crashes creating sessions after it; and only here, as tmux 3.3a reads a pane ~40
# times slower with it set and a control client attached)
t in set -g window-size manual
server tx outer $W $H "exec env $ENVS tmux -u -S $SCR/in.sock attach -t inner:0"
TX_CLIENT=$(t tx list-panes -t outer -F '#{pane_pid}')
TX_SRV=$(t tx display-message -p -t outer '#{pid}')
IN_SRV=$(t in display-message -p -t inner '#{pid}')
ready tx outer "nested tmux"

# The floor: a plain W x H tmux pane; its flood in a second session (a control client attached
# to a session with a flooding pane is told to %exit at once).
server fl floor $W $H
t fl new-session -d -s fflood -x $W -y $H
t fl new-session -d -s plain -x $PW -y $PH # and a plain pane for the stream (no client)
FL_SRV=$(t fl display-message -p -t floor '#{pid}')
RELAY=$(pgrep -f "sandman-supervisor $SCR/state/local/$ID" | tr '\n' ' ') # the sandbox's PTY relay

# ---- throughput ----------------------------------------------------------------------------
echo "throughput: cat of the stream in a ${PW}x$PH pane, $RUNS runs each, interleaved; the clock"
echo "  runs from Enter until the line echoed after cat is on the outer tmux's screen (20 ms polls)"
CLEAR='printf "\033[0m\033[H\033[2J"'
STREAM_CMD="cat $SCR/stream"
MARKS=0
through() { # SIDE SERVER TARGET RUN PIDS...: runs $STREAM_CMD, prints "seconds cpu_seconds_of_each_pid..."
    side=$1 srv=$2 tgt=$3 run=$4
    shift 4
    for p in "$@"; do eval "c0_$p=$(cpu_of "$p")"; done
    MARKS=$((MARKS + 1))
    n=$((run * 1000 + MARKS))
    out=$($TOOL through "$SCR/$srv.sock" "$tgt" "$CLEAR; $STREAM_CMD; echo END_\$(($n - 1 + 1))" \
        "END_$n" 1800 "session lost" "process exited") || fail "$side run $run failed (see above)"
    for p in "$@"; do
        eval "b=\$c0_$p"
        out="$out $(awk -v a="$b" -v b="$(cpu_of "$p")" -v h="$TCK" 'BEGIN {printf "%.2f", (b - a) / h}')"
    done
    echo "$out"
}
: >"$SCR/tp.sm"
: >"$SCR/tp.tx"
: >"$SCR/tp.fl"
i=1
part mixed || i=$((RUNS + 1))
while [ $i -le "$RUNS" ]; do
    for side in $([ $((i % 2)) -eq 1 ] && echo "sm tx" || echo "tx sm"); do
        if [ "$side" = sm ]; then
            # shellcheck disable=SC2086 # one word per pid
            r=$(through sandman sm dash $i "$SM_PID" "$SM_SRV" $RELAY)
            echo "  run $i sandman: $r s (wall, then CPU s of sandman, outer tmux, relay)"
        else
            r=$(through tmux tx outer $i "$IN_SRV" "$TX_CLIENT" "$TX_SRV")
            echo "  run $i tmux:    $r s (wall, then CPU s of inner server, inner client, outer tmux)"
        fi
        echo "$r" >>"$SCR/tp.$side"
    done
    r=$(through "plain tmux" fl plain $i "$FL_SRV")
    echo "  run $i plain tmux pane (no client): $r s (wall, then CPU s of its server)"
    echo "$r" >>"$SCR/tp.fl"
    i=$((i + 1))
done

# ---- scrolling floods ----------------------------------------------------------------------
FLOODS="seq yes log"
flood_stream() { # NAME: the command and its number of lines
    case $1 in
    seq) echo "300000 seq 1 300000" ;;
    yes) echo "1000000 yes | head -n 1000000" ;;
    log) echo "$LOG_LINES cat $SCR/log" ;;
    esac
}
if part floods; then
    echo "scrolling floods in the same ${PW}x$PH panes, $RUNS runs each, interleaved, timed the same way:"
    for f in $FLOODS; do
        : >"$SCR/sc.$f.sm"
        : >"$SCR/sc.$f.tx"
        # shellcheck disable=SC2046 # the line count, then the command's words
        set -- $(flood_stream "$f")
        shift
        STREAM_CMD="$*"
        i=1
        while [ $i -le "$RUNS" ]; do
            for side in $([ $((i % 2)) -eq 1 ] && echo "sm tx" || echo "tx sm"); do
                if [ "$side" = sm ]; then
                    # shellcheck disable=SC2086 # one word per pid
                    r=$(through sandman sm dash $i "$SM_PID" "$SM_SRV" $RELAY)
                else
                    r=$(through tmux tx outer $i "$IN_SRV" "$TX_CLIENT" "$TX_SRV")
                fi
                echo "  $f run $i $([ "$side" = sm ] && echo "sandman:" || echo "tmux:   ") $r s"
                echo "$r" >>"$SCR/sc.$f.$side"
            done
            i=$((i + 1))
        done
    done
fi

# ---- input latency -------------------------------------------------------------------------
# Flooded: `yes` runs in the dashboard's second terminal (Ctrl-b 4, a hidden tab) / the inner
# tmux's second window / the floor's second session while keys go to the first at a bash prompt.
FLOOD_TEXT="flood line with some text $$"
flood_cmd() { echo "while [ -e $SCR/flood.$1 ]; do yes '$FLOOD_TEXT' | head -n 20000; done"; }
if part latency; then
t sm send-keys -t dash C-b 1
sleep 0.5
t sm send-keys -t dash t
$TOOL wait "$SCR/sm.sock" dash "4 $(echo "$ID" | cut -c1-8)" 20 || fail "no second terminal"
sleep 0.5
ready sm dash "second sandman terminal"
t sm send-keys -t dash C-b 3
for s in "sm dash" "tx outer" "fl floor"; do
    # shellcheck disable=SC2086 # two words
    set -- $s
    t "$1" send-keys -t "$2" -l "$CLEAR"
    t "$1" send-keys -t "$2" Enter
done
echo "input latency: keypress to echo at a bash prompt, one key at a time 40-90 ms apart; each"
echo "  timed from send-keys until capture-pane shows it (polls ~0.5 ms apart over one tmux"
echo "  control client); $SAMPLES samples per side and condition, in 5 interleaved blocks"
fi
lat_block() { # SIDE SERVER TARGET FLOOD_SERVER FLOOD_TARGET N COND
    side=$1 srv=$2 tgt=$3 fsrv=$4 ftgt=$5 n=$6 cond=$7
    if [ "$cond" = flood ]; then
        : >"$SCR/flood.$side"
        [ "$side" != sm ] || t sm send-keys -t dash C-b 4
        t "$fsrv" send-keys -t "$ftgt" -l "$(flood_cmd "$side")"
        t "$fsrv" send-keys -t "$ftgt" Enter
        [ "$side" != sm ] || t sm send-keys -t dash C-b 3
        sleep 1
    fi
    $TOOL latency "$SCR/$srv.sock" "$tgt" "$n" "$side$cond$b" >>"$SCR/lat.$side.$cond" ||
        fail "latency ($side, $cond) failed"
    if [ "$cond" = flood ]; then
        rm -f "$SCR/flood.$side"
        k=0 # until the flood has ended, and what it left in buffers was shown
        while pgrep -f "$FLOOD_TEXT" >/dev/null && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
        sleep 1
    fi
}
PER=$(((SAMPLES + 4) / 5))
for cond in idle flood; do
    for side in sm tx fl; do : >"$SCR/lat.$side.$cond"; done
done
b=1
part latency || b=6
while [ $b -le 5 ]; do
    for cond in idle flood; do
        lat_block sm sm dash sm dash "$PER" $cond
        lat_block tx tx outer in inner:9 "$PER" "$cond"
        lat_block fl fl floor fl fflood "$PER" "$cond"
    done
    b=$((b + 1))
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- results -------------------------------------------------------------------------------
col() { awk -v c="$1" '{print $c}' "$2"; }
sum_cols() { awk -v a="$1" -v b="$2" '{print $a + $b}' "$3"; }
SM_T=$(col 1 "$SCR/tp.sm" | median)
TX_T=$(col 1 "$SCR/tp.tx" | median)
mbps() { awk -v b="$BYTES" -v t="$1" 'BEGIN {printf "%.3f", b / 1e6 / t}'; }
ROWS=$SCR/rows.tsv
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$ROWS"; }
: >"$ROWS"
if part floods; then
    for f in $FLOODS; do
        # shellcheck disable=SC2046 # the line count, then the command's words
        set -- $(flood_stream "$f")
        lines=$1
        shift
        sm_t=$(col 1 "$SCR/sc.$f.sm" | median) tx_t=$(col 1 "$SCR/sc.$f.tx" | median)
        lps() { awk -v l="$lines" -v t="$1" 'BEGIN {printf "%.0f", l / t}'; }
        case $f in # no | in a label: the table is Markdown
        log) label="cat of a $LOG_LINES-line log" ;;
        yes) label="yes, the first 1000000 lines" ;;
        *) label="$*" ;;
        esac
        row "scrolling flood: $label (${PW}x$PH)" lines/s "$(lps "$sm_t")" -1 "tmux, nested" "$(lps "$tx_t")" ge ">= tmux"
    done
fi
if part mixed; then
row "throughput, cat of $MB MB (MB = 10^6 B)" MB/s "$(mbps "$SM_T")" -1 "tmux, nested" "$(mbps "$TX_T")" ge ">= tmux"
FL_T=$(col 1 "$SCR/tp.fl" | median)
row "throughput, same stream" MB/s "$(mbps "$SM_T")" -1 "tmux, plain pane, no client" "$(mbps "$FL_T")" info -
row "wall time of the stream" s "$SM_T" -1 "tmux, nested" "$TX_T" info -
row "CPU for the stream (sandman; inner tmux server + client)" s "$(col 2 "$SCR/tp.sm" | median)" -1 \
    "tmux, nested" "$(sum_cols 2 3 "$SCR/tp.tx" | median)" info -
row "CPU of the sandbox's PTY relay (sandman-supervisor)" s \
    "$(awk '{s = 0; for (i = 4; i <= NF; i++) s += $i; print s}' "$SCR/tp.sm" | median)" -1 "" -1 info -
row "CPU of the outer tmux showing it" s "$(col 3 "$SCR/tp.sm" | median)" -1 \
    "tmux, nested" "$(col 4 "$SCR/tp.tx" | median)" info -
fi
part latency || FLOOD_CONDS=
for cond in ${FLOOD_CONDS-flood idle}; do
    label=$([ $cond = flood ] && echo "another terminal flooded" || echo "idle")
    sm_m=$(median <"$SCR/lat.sm.$cond") sm_p=$(p90 <"$SCR/lat.sm.$cond")
    tx_m=$(median <"$SCR/lat.tx.$cond") tx_p=$(p90 <"$SCR/lat.tx.$cond" | xargs printf %.3g)
    fl_m=$(median <"$SCR/lat.fl.$cond") fl_p=$(p90 <"$SCR/lat.fl.$cond")
    row "keypress to echo, $label (raw; tmux p90 $tx_p ms)" ms "$sm_m" "$sm_p" "tmux, nested" "$tx_m" info -
    row "the same minus the floor (plain tmux pane: $(printf %.3g "$fl_m") ms, p90 $(printf %.3g "$fl_p"))" ms \
        "$(awk -v a="$sm_m" -v b="$fl_m" 'BEGIN {print a - b}')" \
        "$(awk -v a="$sm_p" -v b="$fl_p" 'BEGIN {print a - b}')" "tmux, nested" \
        "$(awk -v a="$tx_m" -v b="$fl_m" 'BEGIN {print a - b}')" \
        "$([ $cond = flood ] && echo lt:10 || echo info)" "$([ $cond = flood ] && echo "< 10 ms" || echo -)"
done
echo "load after: $LOAD1"
bps() { awk -v b="$BYTES" -v t="$1" 'BEGIN {printf "%.0f", b / t}'; }
part mixed &&
    echo "throughput in bytes/s: sandman $(bps "$SM_T"), tmux nested $(bps "$TX_T"), tmux plain pane $(bps "$FL_T")"
echo "baselines: tmux nested = a tmux client (TERM=xterm-256color) in a ${W}x$H outer tmux pane,"
echo "  its server's window ${PW}x$PH (the dashboard's pane size), history 10000 lines (the"
echo "  dashboard's scrollback); the dashboard runs in an outer tmux of the same size. The shell"
echo "  in the dashboard runs inside the sandbox (its PTY relayed by the sandbox's init), tmux's on"
echo "  the host. Latency floor = the same probe on a plain ${W}x$H tmux pane (flood in another"
echo "  session of its server): send-keys/capture-pane round trips, one pty and bash's echo."
echo "  The plain pane row: the stream in a ${PW}x$PH tmux pane with no client attached (tmux then"
echo "  parses but draws nothing), for reference only."
mkdir -p "$BUILD/bench/term_bench.samples"
cp "$SCR"/tp.* "$SCR"/lat.* "$BUILD/bench/term_bench.samples/"
! part floods || cp "$SCR"/sc.* "$BUILD/bench/term_bench.samples/" # raw: s per run, ms per key
rc=0
$TOOL table "$ROWS" "$BUILD/bench/term_bench.json" || rc=$?
[ $rc -le 1 ] || fail "cannot write the table"
exit $rc
