"""Starting sandboxed children, from the judge's side: a forking zygote, or single-use workers.

Both give the judge a process id (a process-group leader it can SIGKILL as a whole) and a socket
that speaks grader.wire, and both reap what they started.
"""
from __future__ import annotations

import atexit
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Protocol

import grader

READY_TIMEOUT = 120.0
ZYGOTE_EXIT_S = 15.0  # a zygote whose judges have all gone ends their strays (STRAYS_S at most), then exits


class LaunchError(Exception):
    """The sandbox machinery itself failed (not the submission)."""


class Launcher(Protocol):
    protections: list[str]  # what the launcher itself adds (a subreaper, single-use processes)

    def launch(self, config: dict[str, Any], output: int) -> tuple[int, socket.socket]:
        """Start a child with `config`, its stdout and stderr on the judge's descriptor `output`."""
    def reap(self, pid: int, grace: float = 0.0) -> dict[str, int]:
        """Wait up to `grace` s for the child to end, SIGKILL its process group, return its exit status."""
    def close(self) -> None: ...


# NumPy, which torch imports, starts an OpenBLAS thread pool that neither the judge nor a sandbox uses
# (both run torch on one thread): one thread saves ~0.4 CPU-s per `import torch`, and a zygote with
# no second thread forks without stopping one first.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")


def python_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault(*BLAS_THREADS)
    root = str(Path(grader.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    # `python -m` would put the working directory first on the import path, where a course's own
    # `exercises/` folder would take the place of the grader's package (Python 3.11+ honours this).
    env["PYTHONSAFEPATH"] = "1"
    return env


# What a sandbox inherits of the environment: what Python, torch and its libraries read. Nothing else
# (a CI runner's $GITHUB_OUTPUT and tokens, an instructor's credentials) is a submission's business.
SANDBOX_VARIABLES = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "LD_LIBRARY_PATH",
                     "PYTHONPATH", "PYTHONSAFEPATH")
SANDBOX_PREFIXES = ("LC_", "OMP_", "MKL_", "OPENBLAS_", "CUDA_", "NVIDIA_", "TORCH_")


# What glibc's malloc holds (~80 MB of what `import torch` leaves) in transparent huge pages, so that a fork copies
# fewer page-table entries for it. Where glibc or the kernel offers no huge pages the setting changes nothing.
# Python's own objects stay in Python's allocator: in glibc's malloc too (PYTHONMALLOC=malloc, so in those huge
# pages) the fork is cheaper, but each sandbox that writes to an inherited object splits a huge page to copy it:
# a mask sandbox and its fork cost ~60 ms of CPU against ~64 (benchmarks/sandbox_cost.py --env PYTHONMALLOC=malloc).
HUGE_PAGES = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}


def sandbox_env() -> dict[str, str]:
    """What a sandbox's process starts with: the allow-listed variables, and the memory setting above."""
    env = {k: v for k, v in python_env().items() if k in SANDBOX_VARIABLES or k.startswith(SANDBOX_PREFIXES)}
    return {**HUGE_PAGES, **env}


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "grader.sandbox.zygote", *args]


class _Zygote:
    """A zygote process and the file it writes why it died to, shared by the launchers connected to it."""

    def __init__(self, sockets: int) -> None:
        pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(sockets)]
        self.errors = tempfile.TemporaryFile()
        theirs = [pair[1].fileno() for pair in pairs]
        self.proc = subprocess.Popen(
            _command("zygote", *map(str, theirs)),
            pass_fds=theirs,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.errors,
            env=sandbox_env(),
            # A session of its own: what ends the judge's group (a Jupyter kernel's Stop, Ctrl-C in a terminal)
            # leaves the zygote to end the sandboxes, which it does once the judge's socket closes.
            start_new_session=True,
        )
        for _, end in pairs:
            end.close()
        self.sockets = [ours for ours, _ in pairs]
        self.owner = os.getpid()  # the process that can wait for the zygote
        self.users = sockets  # launchers in the owner not closed yet

    def release(self) -> None:
        """One launcher fewer (its socket already closed); in the owner, the last one waits for the zygote,
        which exits once no judge's socket is open, after it has ended what they left, and kills it if not."""
        if os.getpid() != self.owner:  # a forked worker's copy: only its own descriptor to close
            self.errors.close()
            return
        self.users -= 1
        if self.users == 0:
            try:
                self.proc.wait(timeout=ZYGOTE_EXIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.errors.close()


class ZygoteLauncher:
    """Forks children from a process that imported torch once; starting it early hides that cost.

    A batch starts one zygote for all its workers (`shared`) before it imports torch itself, and hands a
    launcher to each worker it forks (`hand_over`): only the starting process can wait for a zygote, so
    a launcher learns that its zygote died from its socket, which the worker holds too.
    """

    def __init__(self, zygote: _Zygote | None = None, ctl: socket.socket | None = None) -> None:
        self._connect(zygote or _Zygote(1), ctl)

    @classmethod
    def shared(cls, count: int) -> list[ZygoteLauncher]:
        """`count` launchers on one zygote, each with a socket of its own: a batch's, which forks its whole class."""
        zygote = _Zygote(count)
        return [cls(zygote, ctl) for ctl in zygote.sockets]

    def _connect(self, zygote: _Zygote, ctl: socket.socket | None) -> None:
        self.zygote = zygote
        self.ctl = ctl or zygote.sockets[0]
        self.ready = False
        self.protections: list[str] = []

    def _request(self, request: dict[str, Any], fds: list[int] | None = None) -> dict[str, Any]:
        try:
            if not self.ready:
                self.ctl.settimeout(READY_TIMEOUT)
                hello = json.loads(self.ctl.recv(4096) or b"{}")
                if not hello.get("ready"):
                    raise LaunchError(self._died())
                self.protections = [str(p) for p in hello.get("protections", [])]
                self.ready = True
            self.ctl.settimeout(READY_TIMEOUT)
            socket.send_fds(self.ctl, [json.dumps(request).encode()], fds or [])
            answer = self.ctl.recv(4096)
        except (OSError, ValueError) as exc:
            raise LaunchError(f"the zygote did not answer: {exc}") from None
        if not answer:
            raise LaunchError(self._died())
        return json.loads(answer)

    def _died(self) -> str:
        status = self.zygote.proc.wait() if os.getpid() == self.zygote.owner else "unknown to this process"
        self.zygote.errors.seek(0)
        lines = self.zygote.errors.read().decode(errors="replace").strip().splitlines()
        return f"the zygote exited with status {status}" + (f": {lines[-1]}" if lines else "")

    def _gone(self) -> bool:
        """Once it has said hello, the zygote speaks only when asked: a readable socket means it exited."""
        return bool(select.select([self.ctl], [], [], 0)[0])

    def launch(self, config: dict[str, Any], output: int) -> tuple[int, socket.socket]:
        if self.ready and self._gone():
            # Killed (a submission where no namespace or Landlock stopped it, or the OOM killer):
            # a new zygote of our own costs one `import torch`; the remaining submissions are still graded.
            self.close()
            self._connect(_Zygote(1), None)
        ours, theirs = socket.socketpair()
        try:
            pid = self._request({"op": "fork", "config": config}, [theirs.fileno(), output])["pid"]
        finally:
            theirs.close()
        return int(pid), ours

    def reap(self, pid: int, grace: float = 0.0) -> dict[str, int]:
        return self._request({"op": "reap", "pid": pid, "grace": grace})

    def descriptors(self) -> tuple[int, ...]:
        """What a forked worker must keep open to use this launcher: the socket and the zygote's error file."""
        return self.ctl.fileno(), self.zygote.errors.fileno()

    def hand_over(self) -> None:
        """In the starting process, once a forked worker holds this launcher: drop our end of the socket,
        so that the zygote sees the worker go; `close` then reaps it, once its other launchers are closed."""
        self.ctl.close()

    def close(self) -> None:
        """Our socket closed is the goodbye: the zygote ends once all its judges have gone. A worker that
        was handed a launcher only closes the socket; the starting process reaps the zygote."""
        self.ctl.close()
        self.zygote.release()


class SpawnLauncher:
    """Single-use interpreters, for platforms where forking after `import torch` is unsafe.

    One worker is always started ahead, so its `import torch` overlaps with the judge's work; it
    waits for its configuration on its socket and serves one submission.
    """

    def __init__(self) -> None:
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.next = self._spawn()
        self.protections = ["single-use-worker"]

    def _spawn(self) -> tuple[subprocess.Popen[bytes], socket.socket]:
        ours, theirs = socket.socketpair()
        proc = subprocess.Popen(
            _command("worker", str(theirs.fileno())),
            pass_fds=(theirs.fileno(),),
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=sandbox_env(),
        )
        theirs.close()
        self.procs[proc.pid] = proc
        return proc, ours

    def launch(self, config: dict[str, Any], output: int) -> tuple[int, socket.socket]:
        from grader import wire  # not at the top: the CLI imports this module before anything loads torch

        (proc, ours), self.next = self.next, self._spawn()
        try:
            wire.send(ours, config, timeout=READY_TIMEOUT)
            socket.send_fds(ours, [b"output"], [output])
        except (wire.WireError, OSError) as exc:
            raise LaunchError(f"a worker did not start: {exc}") from None
        return proc.pid, ours

    def reap(self, pid: int, grace: float = 0.0) -> dict[str, int]:
        proc = self.procs.pop(pid)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        if proc.returncode is None:
            try:
                os.killpg(pid, 9)
            except OSError:
                pass
        code = proc.wait()
        return {"signal": -code} if code < 0 else {"exit": code}

    def close(self) -> None:
        self.next[1].close()
        for proc in self.procs.values():
            proc.kill()
            proc.wait()


def zygotes_available() -> bool:
    return sys.platform.startswith("linux") and hasattr(socket, "send_fds")


_EARLY: list[ZygoteLauncher] = []  # the zygote grader.cli.main started, until a Grader takes it


def start_early() -> None:
    """Start the zygote `grade EXERCISE FILE` will grade with, first thing (grader.cli.main); one the command never
    took (it stopped before grading: a missing file) is killed at exit, however far its import of torch got."""
    if zygotes_available():
        _EARLY.append(ZygoteLauncher())
        atexit.register(_drop_early)


def _drop_early() -> None:
    for launcher in _EARLY:
        launcher.zygote.proc.kill()
        launcher.close()
    _EARLY.clear()


def default_launcher() -> Launcher:
    """The launcher this platform grades with, for `Grader` alone, which hides its process from tracing first:
    the zygote started early in this process (start_early), else a new one."""
    if _EARLY and _EARLY[-1].zygote.owner == os.getpid():
        return _EARLY.pop()
    return ZygoteLauncher() if zygotes_available() else SpawnLauncher()
