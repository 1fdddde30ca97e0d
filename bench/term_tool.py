#!/usr/bin/env python3
"""Helper of bench/term_bench.sh (not run on its own).

  gen FILE BYTES SEED            a deterministic stream of mixed text and escape sequences
  genlog FILE LINES SEED         a plain log (timestamp, level, component, message; no escapes)
  through SOCK TARGET CMD MARK SECS [FAIL...]
                                 types CMD + Enter into a tmux pane and prints the seconds until
                                 MARK is on that pane's screen (polled every 20 ms); exit 1 when
                                 a FAIL text shows up or SECS pass first
  latency SOCK TARGET N PREFIX   keypress-to-echo: N single characters typed into a pane at a
                                 shell prompt; prints one latency in ms per line
  table ROWS JSON                prints ROWS (tab-separated: metric unit median p90 baseline
                                 baseline_value check target; check = info, ge (median >=
                                 baseline) or lt:X (median < X)) as a table, writes JSON; exit 1
                                 when a check fails
  wait SOCK TARGET TEXT SECS     waits until TEXT is on the pane's screen (exit 1 on timeout)

tmux is driven through one control-mode client (tmux -C, output notifications off), so a
send-keys or capture-pane costs a round trip on an open socket, not a process start."""
import random
import subprocess
import sys
import time

# ---- the stream ------------------------------------------------------------------------------

WORDS = ("the quick brown fox jumps over lazy dog sandbox agent rollout terminal pane buffer "
         "render cursor scroll region colour attribute throughput latency kernel process "
         "memory cgroup namespace overlay image layer snapshot journal event metric sample "
         "failure exit code signal pipe socket stream escape sequence libvterm ncurses tmux").split()
ACCENTED = ["café", "naïve", "façade", "Größe", "señor", "élan", "smörgåsbord", "Ωmega", "Δx"]
CJK = [chr(c) for c in range(0x4E00, 0x4E00 + 400)] + [chr(c) for c in range(0xAC00, 0xAC00 + 100)]


def sgr(r):
    k = r.random()
    if k < 0.30:  # 16 colours, foreground or background
        return "\033[%dm" % r.choice([30, 31, 32, 33, 34, 35, 36, 37, 90, 91, 92, 93, 94, 95,
                                      96, 97, 40, 41, 42, 43, 44, 45, 46, 47])
    if k < 0.55:  # 256 colours
        return "\033[%d;5;%dm" % (r.choice((38, 48)), r.randrange(256))
    if k < 0.75:  # direct RGB
        return "\033[%d;2;%d;%d;%dm" % (r.choice((38, 48)), r.randrange(256), r.randrange(256),
                                       r.randrange(256))
    if k < 0.85:
        return r.choice(("\033[1m", "\033[4m", "\033[1;4m", "\033[22m", "\033[24m"))
    return r.choice(("\033[0m", "\033[m", "\033[39m", "\033[49m"))


def word(r):
    k = r.random()
    if k < 0.06:
        return "".join(r.choice(CJK) for _ in range(r.randint(1, 4)))  # wide characters
    if k < 0.10:
        return r.choice(ACCENTED)
    if k < 0.14:
        return str(r.randrange(1 << 20))
    return r.choice(WORDS)


def line(r):
    """One line: words with SGR changes between them; some lines long enough to wrap, some
    moving the cursor (absolute within 40x180, relative) or erasing (EL)."""
    out = []
    k = r.random()
    if k < 0.04:  # jump somewhere on the screen, overwrite, erase the rest of the line
        out.append("\033[%d;%dH" % (r.randint(1, 40), r.randint(1, 180)))
    elif k < 0.07:
        out.append("\r\033[2K")
    elif k < 0.09:
        out.append("\033[%d%s" % (r.randint(1, 5), r.choice("ABCD")))
    n = r.randint(80, 120) if r.random() < 0.05 else r.randint(3, 22)  # long lines wrap
    for _ in range(n):
        if r.random() < 0.3:
            out.append(sgr(r))
        out.append(word(r))
        out.append(" ")
    if k < 0.04 or r.random() < 0.05:
        out.append("\033[K")
    if r.random() < 0.5:
        out.append("\033[0m")
    out.append("\n")
    return "".join(out).encode()


def gen(path, size, seed):
    """Lines from a pool of 20000 generated ones, picked in a seeded order (fast, and the same
    bytes for the same seed and size)."""
    r = random.Random(seed)
    pool = [line(r) for _ in range(20000)]
    total = 0
    with open(path, "wb") as f:
        while total < size:
            chunk = b"".join(r.choices(pool, k=4096))
            last = total + len(chunk) >= size
            if last:  # end on a whole line, at most size bytes
                chunk = chunk[:chunk.rfind(b"\n", 0, size - total) + 1]
            f.write(chunk)
            total += len(chunk)
            if last:
                break
    print(total)


def genlog(path, lines, seed):
    """Log lines as services write them: every line scrolls the screen, none wraps."""
    r = random.Random(seed)
    levels = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR")
    with open(path, "w") as f:
        for i in range(lines):
            f.write("2026-12-01T23:%02d:%02d.%06dZ %-5s %-9s %s\n" % (
                i // 60000 % 60, i // 1000 % 60, i * 7919 % 1000000, r.choice(levels),
                r.choice(WORDS), " ".join(r.choices(WORDS, k=r.randint(3, 14)))))
    print(lines)


# ---- tmux control client -----------------------------------------------------------------------


class Ctl:
    """One control-mode client on a private server: commands go over its open socket."""

    def __init__(self, sock, session):
        self.p = subprocess.Popen(["tmux", "-S", sock, "-C", "attach", "-t", session],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self._send("refresh-client -f no-output")
        self._send("display-message -p term-tool-sync")
        while self._line() != "term-tool-sync":  # skips the attach's own blocks
            pass
        self._line()  # its %end

    def _send(self, c):
        self.p.stdin.write((c + "\n").encode())

    def _line(self):
        b = self.p.stdout.readline()
        if not b:
            raise SystemExit("term_tool: the tmux control client ended")
        ln = b.decode("utf-8", "replace").rstrip("\n")
        if ln.startswith("%exit"):
            raise SystemExit("term_tool: tmux ended the control client: " + ln)
        return ln

    def cmd(self, c):
        """Runs one tmux command; returns its output lines."""
        self._send(c)
        while not self._line().startswith("%begin"):  # notifications
            pass
        lines = []
        while True:
            ln = self._line()
            if ln.startswith("%end"):
                return lines
            if ln.startswith("%error"):
                raise SystemExit("term_tool: tmux %s: %s" % (c, " ".join(lines)))
            lines.append(ln)

    def screen(self, target):
        return "\n".join(self.cmd("capture-pane -p -t %s" % target))

    def keys(self, target, text):
        """Types text literally (it must not contain a single quote)."""
        assert "'" not in text
        self.cmd("send-keys -t %s -l '%s'" % (target, text))

    def key(self, target, name):
        self.cmd("send-keys -t %s %s" % (target, name))

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


def wait_for(c, target, text, timeout, poll=0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if text in c.screen(target):
            return True
        time.sleep(poll)
    return False


def through(sock, target, command, mark, timeout, fails):
    """Seconds from Enter (after typing command) until mark is on the pane's screen."""
    c = Ctl(sock, target)
    c.keys(target, command)
    time.sleep(0.3)  # the command line is echoed before the clock starts
    t0 = time.monotonic()
    c.key(target, "Enter")
    end = t0 + timeout
    while time.monotonic() < end:
        scr = c.screen(target)
        if mark in scr:
            print("%.4f" % (time.monotonic() - t0))
            c.close()
            return 0
        bad = [f for f in fails if f in scr]
        if bad:
            tail = "\n".join(l for l in scr.splitlines() if l.strip())
            print("term_tool: the pane shows %r; its last lines:\n%s" % (
                bad[0], "\n".join(tail.splitlines()[-3:])), file=sys.stderr)
            c.close()
            return 1
        time.sleep(0.02)
    c.close()
    print("term_tool: %s not seen within %.0f s" % (mark, timeout), file=sys.stderr)
    return 1


def latency(sock, target, n, prefix):
    """n keypresses, one at a time, at random intervals (so they fall on any phase of a render
    timer); each timed from before send-keys until the echo is on the pane's screen, polling
    capture-pane about every 0.5 ms. A line takes 25 characters, then Enter (a comment line) and
    a new prefix."""
    c = Ctl(sock, target)
    r = random.Random(prefix)  # prefixes differ per block: no line of an earlier one matches
    alphabet = "qzkjvybpgucra0123456789"
    out = []
    rnd = 0
    while len(out) < n:
        rnd += 1
        head = "#%s-%d:" % (prefix, rnd)
        c.keys(target, head)
        if not wait_for(c, target, head, 10):
            print("term_tool: the prompt does not echo %s" % head, file=sys.stderr)
            return 1
        typed = head
        for _ in range(25):
            if len(out) >= n:
                break
            time.sleep(r.uniform(0.04, 0.09))
            ch = r.choice(alphabet)
            typed += ch
            if typed in c.screen(target):
                print("term_tool: %r is on the screen before it was typed" % typed, file=sys.stderr)
                return 1
            t0 = time.monotonic()
            c.keys(target, ch)
            while True:
                if typed in c.screen(target):
                    out.append((time.monotonic() - t0) * 1000)
                    break
                if time.monotonic() - t0 > 5:
                    print("term_tool: no echo of %r within 5 s" % ch, file=sys.stderr)
                    return 1
                time.sleep(0.0005)
        c.key(target, "Enter")
        time.sleep(0.1)
    c.close()
    for v in out:
        print("%.3f" % v)
    return 0


def table(rows_path, json_path):
    import json
    rows, bad = [], 0
    for ln in open(rows_path):
        metric, unit, med, p90, base_name, base, check, target = ln.rstrip("\n").split("\t")
        med, p90, base = float(med), float(p90), float(base)
        if check == "info":
            result = "info"
        elif check == "ge":
            result = "PASS" if med >= base else "FAIL"
        else:
            result = "PASS" if med < float(check[3:]) else "FAIL"
        bad += result == "FAIL"
        rows.append(dict(metric=metric, unit=unit, median=med, p90=p90 if p90 >= 0 else None,
                         baseline=base_name or None, baseline_value=base if base_name else None,
                         ratio=round(med / base, 3) if base_name and base > 0 else None,
                         target=target, result=result))
    f = lambda v: "-" if v is None else ("%.3g" % v if abs(v) < 100 else "%.0f" % v)
    print("\n| metric | sandman median | sandman p90 | baseline | baseline median | ratio | "
          "target | result |")
    print("|---|---:|---:|---|---:|---:|---|---|")
    for r in rows:
        print("| %s | %s %s | %s | %s | %s | %s | %s | %s |" % (
            r["metric"], f(r["median"]), r["unit"], f(r["p90"]), r["baseline"] or "-",
            f(r["baseline_value"]) + (" " + r["unit"] if r["baseline"] else ""),
            "-" if r["ratio"] is None else "%.2f" % r["ratio"], r["target"], r["result"]))
    with open(json_path, "w") as out:
        json.dump({"rows": rows}, out, indent=1)
    return 1 if bad else 0


def main(a):
    if len(a) == 4 and a[0] == "gen":
        gen(a[1], int(a[2]), int(a[3]))
        return 0
    if len(a) == 4 and a[0] == "genlog":
        genlog(a[1], int(a[2]), int(a[3]))
        return 0
    if len(a) >= 6 and a[0] == "through":
        return through(a[1], a[2], a[3], a[4], float(a[5]), a[6:])
    if len(a) == 5 and a[0] == "latency":
        return latency(a[1], a[2], int(a[3]), a[4])
    if len(a) == 3 and a[0] == "table":
        return table(a[1], a[2])
    if len(a) == 5 and a[0] == "wait":
        c = Ctl(a[1], a[2])
        ok = wait_for(c, a[2], a[3], float(a[4]))
        c.close()
        return 0 if ok else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
