"""The zygote: imports torch once, then forks one fresh child per submission (~20 ms instead of ~1.7 s).

Started by the judge with exec (never forked from it), it holds only a private socket pair to the
judge: no listening socket exists for a child to reach. It never runs a torch op and never touches
CUDA, because forking after either leaves the child with a deadlocked OpenMP pool or a dead context.

`python -m grader.sandbox.zygote zygote FD` serves fork requests on FD;
`python -m grader.sandbox.zygote worker FD` is a single-use worker (it reads its configuration from FD)
for platforms without a safe fork.
"""
from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any

import torch  # noqa: F401  (the point of the zygote: children inherit it already imported)

from grader import wire
from grader.sandbox import child

MAX_REQUEST = 64 * 1024


def exit_status(status: int) -> dict[str, int]:
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit": os.WEXITSTATUS(status)}


def serve(ctl: socket.socket) -> None:
    reply(ctl, {"ready": True})
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(ctl, MAX_REQUEST, 1)
        except OSError:  # the judge is gone
            return
        if not msg:
            return
        request = json.loads(msg)
        if request["op"] == "fork":
            reply(ctl, {"pid": fork_child(ctl, fds[0], request["config"])})
        elif request["op"] == "reap":
            _, status = os.waitpid(request["pid"], 0)
            reply(ctl, exit_status(status))


def fork_child(ctl: socket.socket, fd: int, config: dict[str, Any]) -> int:
    pid = os.fork()
    if pid:
        os.close(fd)
        return pid
    code = 0
    try:
        os.setsid()  # its own process group, so the judge can kill the whole tree at once
        ctl.close()
        os.closerange(3, fd)
        os.closerange(fd + 1, 1 << 16)
        child.start(socket.socket(fileno=fd), config)
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def reply(ctl: socket.socket, value: dict[str, Any]) -> None:
    try:
        ctl.send(json.dumps(value).encode())
    except OSError:  # the judge is gone; the next recv ends the loop
        pass


def _die_with_parent() -> None:
    """Linux: if the judge dies, so does the zygote (its children are killed by the judge's cleanup)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL)


def main(argv: list[str]) -> None:
    if argv[0] == "zygote":
        _die_with_parent()
        serve(socket.socket(fileno=int(argv[1])))
    elif argv[0] == "worker":
        sock = socket.socket(fileno=int(argv[1]))
        child.start(sock, wire.recv(sock))


if __name__ == "__main__":
    main(sys.argv[1:])
