"""The zygote: imports torch once, then forks one fresh child per submission (~20 ms instead of ~1.7 s).

Started by the judge with exec (never forked from it), it holds only private socket pairs to its
judges: no listening socket exists for a child to reach. It never runs a torch op and never touches
CUDA, because forking after either leaves the child with a deadlocked OpenMP pool or a dead context.

`python -m grader.sandbox.zygote zygote FD...` serves fork requests on each FD, one per judge (the
workers of a batch share one zygote: one `import torch` for all of them);
`python -m grader.sandbox.zygote worker FD` is a single-use worker (it reads its configuration from FD)
for platforms without a safe fork.
"""
from __future__ import annotations

import importlib
import json
import linecache
import os
import select
import signal
import socket
import sys
import time
from typing import Any

from grader.sandbox import heap

if __name__ == "__main__":  # started as a zygote or a worker, not imported: torch loads with the collector off
    heap.loading()  # (grader.sandbox.heap); `loaded` in main, before any child runs

import torch  # noqa: F401  (the point of the zygote: children inherit it already imported)

from grader import wire
from grader.sandbox import child, confine, isolation

MAX_REQUEST = 64 * 1024
# Modules that common notebook code imports on first use, in every child otherwise: printing a tensor
# imports schema_check_mode (~15 ms a child). Importing them runs no torch op.
FIRST_USE_MODULES = ("torch._subclasses.schema_check_mode", "encodings.unicode_escape", "encodings.utf_8_sig")
# Sources every child otherwise reads: torch.manual_seed, which most notebooks call, queues the seed for
# each accelerator torch supports (should one start later) with the stack that called it, and formatting
# a stack reads the source of each of its frames. Read here, they are inherited (a call: 1.9 -> 0.9 ms).
STACK_SOURCES = ("torch.random", "torch.cuda.random", "torch.cuda", "torch.xpu.random", "torch.xpu", "torch.mtia",
                 "grader.sandbox.child", "grader.sandbox.zygote")
STRAYS_S = 10.0  # the most one cleanup of strays takes; what a tree forks faster than that waits for the next


def exit_status(status: int) -> dict[str, int]:
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit": os.WEXITSTATUS(status)}


def serve(judges: list[socket.socket], protections: list[str], pids: isolation.PidNamespaces) -> None:
    """Answer each judge's requests until every judge is gone. Requests are short (a fork, or a reap that
    waits at most its grace), so one judge waits for another's for milliseconds. A judge is gone when its
    socket closes, however it ended (killed with -9, or with the Jupyter kernel that started it): what it
    was grading is ended then, and everything that escaped it, before the zygote itself goes."""
    live: dict[int, socket.socket] = {}  # children serving a submission now, and the judge of each;
    # any other child of ours is a stray
    for ctl in judges:
        reply(ctl, {"ready": True, "protections": protections})
    while judges:
        for ctl in select.select(judges, [], [])[0]:
            try:
                msg, fds, _, _ = socket.recv_fds(ctl, MAX_REQUEST, 2)
            except OSError:
                msg, fds = b"", []
            if not msg:  # this judge is gone, and with it what it was grading
                judges.remove(ctl)
                ctl.close()
                for pid in [pid for pid, judge in live.items() if judge is ctl]:
                    end_child(pid, 0.0)
                    del live[pid]
                kill_strays(set(live))
                continue
            request = json.loads(msg)
            if request["op"] == "fork":
                pid = fork_child(judges, fds, request["config"], pids)
                live[pid] = ctl
                reply(ctl, {"pid": pid})
            elif request["op"] == "reap":
                status = end_child(request["pid"], float(request.get("grace", 0)))
                live.pop(request["pid"], None)
                kill_strays(set(live))
                reply(ctl, exit_status(status))


def fork_child(judges: list[socket.socket], fds: list[int], config: dict[str, Any],
               pids: isolation.PidNamespaces) -> int:
    """A child for one submission: `fds` are its socket to the judge and the judge's output descriptor. Where
    this zygote may (`pids`), the child is PID 1 of a PID namespace of its own from its start."""
    isolation.survey(confine.readable_roots(tuple(config["hidden"])))  # walked here once, inherited by every child
    pid_one = "namespaces" not in config["without"] and pids.fresh()
    try:
        pid = os.fork()
    except OSError:
        pids.reset()
        raise
    if pid:
        pids.reset()  # later forks (a child without namespaces) in the zygote's own PID namespace again
        for fd in fds:
            os.close(fd)
        return pid
    config = {**config, "pid_one": pid_one}
    code = 0
    try:
        os.setsid()  # its own process group, so the judge can kill the whole tree at once
        for ctl in judges:
            ctl.close()
        sock_fd, output = fds
        _close_all_but({sock_fd, output})
        confine.die_with_parent()
        child.start(socket.socket(fileno=sock_fd), output, config)
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def _close_all_but(keep: set[int]) -> None:
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def end_child(pid: int, grace: float) -> int:
    """Give the child `grace` seconds to end, kill its whole process group, reap it; its wait status.

    The group is killed while the leader is still unreaped, so its id cannot have been reused.
    """
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            break
        time.sleep(0.005)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    return os.waitpid(pid, 0)[1]


def kill_strays(live: set[int]) -> None:
    """Kill every process below a child of ours that is not a live submission's: the orphans the subreaper
    inherited (setsid, double forks) and all they started, however deep the tree or however fast it forks.

    A round kills our stray children and every process below them, then reaps the children; a killed
    process forks no more, and what it had forked re-parents here, for the next round. Only our own
    unreaped children are signalled by pid; a process further down is signalled through a process
    descriptor, and only while it still has the start time the round saw, so no pid reused meanwhile by
    another process is ever hit. Rounds end when no stray is left, or after STRAYS_S at most.
    """
    deadline = time.monotonic() + STRAYS_S
    while (strays := [pid for pid in _children() if pid not in live]) and time.monotonic() < deadline:
        below = _below(strays, _processes())
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid, started in below:
            _kill_if_still(pid, started)
        for pid in strays:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _below(roots: list[int], table: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    """(pid, start time) of every process below `roots` in `table` (pid -> (parent, start time))."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, level = [], list(roots)
    while level:
        level = [child for parent in level for child in children.get(parent, ())]
        found += level
    return [(pid, table[pid][1]) for pid in found]


def _kill_if_still(pid: int, started: int) -> None:
    """SIGKILL the process `pid` if it is still the one that started at `started` (where the kernel has
    process descriptors; elsewhere it is left to a later round, once it is our child)."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return
    try:
        if _processes([pid]).get(pid, (0, -1))[1] == started:
            signal.pidfd_send_signal(handle, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(handle)


def _children() -> list[int]:
    """Our children: one read of the kernel's list where it keeps one (CONFIG_PROC_CHILDREN, ~1.5 ms
    less per submission than walking /proc); the zygote is single-threaded, so its one task has them all."""
    me = os.getpid()
    try:
        with open(f"/proc/self/task/{me}/children") as listed:
            return [int(pid) for pid in listed.read().split()]
    except OSError:
        pass
    return [pid for pid, (parent, _) in _processes().items() if parent == me]


def _processes(pids: list[int] | None = None) -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, start time in clock ticks) of the given processes, or of every process."""
    table = {}
    for pid in pids if pids is not None else [int(e) for e in os.listdir("/proc") if e.isdigit()]:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()  # the name before it may hold anything
        except OSError:
            continue
        table[pid] = (int(fields[1]), int(fields[19]))
    return table


def reply(ctl: socket.socket, value: dict[str, Any]) -> None:
    try:
        ctl.send(json.dumps(value).encode())
    except OSError:  # the judge is gone; the next recv ends the loop
        pass


def preload() -> None:
    for name in FIRST_USE_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:  # another torch version, whose printing needs something else
            pass
    for name in STACK_SOURCES:
        linecache.getlines(getattr(sys.modules.get(name), "__file__", None) or "")


def main(argv: list[str]) -> None:
    if argv[0] == "zygote":
        preload()
        # What the children inherit is never collected here again: a collection in a child would write to
        # every inherited object and so copy most of the heap (~90 ms and 40 MB per child).
        heap.loaded()
        # It does not die with the judge (no PR_SET_PDEATHSIG): killed with it, it could end nothing the judge's
        # submissions left behind. It ends once every judge's socket has closed, after ending what they graded.
        confine.hide_from_tracing()
        serve([socket.socket(fileno=int(fd)) for fd in argv[1:]],
              ["subreaper"] if confine.become_subreaper() else [], isolation.PidNamespaces())
        os._exit(0)  # nothing to flush, and the judge waits for this exit: tearing torch down costs ~0.1 s
    elif argv[0] == "worker":
        heap.loaded()
        sock = socket.socket(fileno=int(argv[1]))
        config = wire.recv(sock)
        _, fds, _, _ = socket.recv_fds(sock, 16, 1)
        child.start(sock, fds[0], config)


if __name__ == "__main__":
    main(sys.argv[1:])
