#!/usr/bin/env python3
"""A hand-written client of the local provider's control protocol (providers/local/proto.h),
for the attack tests: it speaks to a sandbox's ctl.sock the way an attacker could, from the
host or from inside a sandbox.

usage: lp_client.py SOCKET exec CMD      run CMD through the socket; prints its output and exit
       lp_client.py SOCKET ping          prints pong, or the refusal
       lp_client.py SOCKET abuse         sends malformed and oversized requests, then pings
       lp_client.py SOCKET keep-session  opens a kept PTY session; prints its id
       lp_client.py SOCKET attach ID SINCE  attaches with a replay offset; prints bytes replayed
"""
import os
import socket
import struct
import sys
import time

HDR = struct.Struct("<IHHqq")
PING, PONG, EXEC, STARTED, EXITED, ERROR, KILL, PTY_OPEN, ATTACH, DATA, RESIZE = range(1, 12)
F_KEEP = 4


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    return s


def send(s, typ, a=0, b=0, payload=b"", flags=0, fds=None, length=None):
    hdr = HDR.pack(len(payload) if length is None else length, typ, flags, a, b)
    try:
        if fds:
            socket.send_fds(s, [hdr], fds)
        else:
            s.sendall(hdr)
        if payload:
            s.sendall(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass  # a refusal closes the socket; its reason may still be there to read


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
    return buf


def recv(s):
    length, typ, flags, a, b = HDR.unpack(recv_exact(s, HDR.size))
    return typ, a, b, recv_exact(s, length) if length else b""


def spawn_payload(cmd):
    return b"\0".join([b"/bin/sh", cmd.encode(), b"", b"", b"PATH=/usr/bin:/bin"]) + b"\0"


def first_reply(s):
    typ, a, _, payload = recv(s)
    if typ == ERROR:
        print("error:", payload.decode(errors="replace"))
        sys.exit(3)
    return typ, a, payload


def do_exec(path, cmd):
    s = connect(path)
    rin, win = os.pipe()
    rout, wout = os.pipe()
    os.close(win)
    send(s, EXEC, payload=spawn_payload(cmd), fds=[rin, wout, wout])
    os.close(rin)
    os.close(wout)
    first_reply(s)
    typ, status, _, _ = recv(s)
    out = b""
    while True:
        chunk = os.read(rout, 65536)
        if not chunk:
            break
        out += chunk
    sys.stdout.write(out.decode(errors="replace"))
    print("exit", status >> 8)


def do_ping(path):
    s = connect(path)
    send(s, PING)
    first_reply(s)
    print("pong")


def do_abuse(path):
    # Each request on its own connection; the init must answer or drop it, never crash or grow.
    attempts = [
        lambda s: send(s, KILL, a=-5),
        lambda s: send(s, KILL, a=1 << 40),
        lambda s: send(s, RESIZE, a=0, b=0),
        lambda s: send(s, RESIZE, a=1 << 40, b=-1),
        lambda s: send(s, PTY_OPEN, a=-1, b=1 << 33, payload=spawn_payload("true")),
        lambda s: send(s, ATTACH, a=-(1 << 62), payload=b"x" * 4096),
        lambda s: send(s, ATTACH, a=1 << 62, payload=b"nosuch\0"),
        lambda s: send(s, EXEC, payload=b"\0\0"),
        lambda s: send(s, EXEC, payload=spawn_payload("true")),  # no descriptors
        lambda s: send(s, 999, payload=b"junk"),
        lambda s: send(s, DATA, length=0xFFFFFFF0),  # a frame far over the maximum
    ]
    for attempt in attempts:
        s = connect(path)
        attempt(s)
        s.close()
    # Requests whose replies are never read, and a flood of input to no session.
    s = connect(path)
    s.setblocking(False)
    deadline = time.time() + 3
    sent = 0
    while time.time() < deadline and sent < (64 << 20):
        try:
            s.send(HDR.pack(0, PING, 0, 0, 0) * 4096)
            sent += HDR.size * 4096
        except BlockingIOError:
            time.sleep(0.01)
        except OSError:
            break
    s.close()
    do_ping(path)


def do_keep_session(path):
    s = connect(path)
    send(s, PTY_OPEN, a=24, b=80, flags=F_KEEP, payload=spawn_payload("echo hello; sleep 600"))
    _, _, sid = first_reply(s)
    print(sid.decode())


def do_attach(path, sid, since):
    s = connect(path)
    send(s, ATTACH, a=int(since), payload=sid.encode() + b"\0")
    first_reply(s)
    s.settimeout(1)
    got = 0
    try:
        while True:
            typ, _, _, payload = recv(s)
            if typ == DATA:
                got += len(payload)
    except (socket.timeout, EOFError):
        pass
    print("replayed", got)


def main():
    path, verb = sys.argv[1], sys.argv[2]
    try:
        if verb == "exec":
            do_exec(path, sys.argv[3])
        elif verb == "ping":
            do_ping(path)
        elif verb == "abuse":
            do_abuse(path)
        elif verb == "keep-session":
            do_keep_session(path)
        elif verb == "attach":
            do_attach(path, sys.argv[3], sys.argv[4])
    except (OSError, EOFError) as e:
        print("failed:", e)
        sys.exit(4)


main()
