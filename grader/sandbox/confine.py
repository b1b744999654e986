"""Process flags and Landlock: what a child (and the zygote) ask of the kernel about themselves.

Every step is tried and reported; none is required. A step the kernel refuses (no Landlock on an old
kernel, not Linux at all) is left out of the `protections` list, and the sandbox still runs with what
remains. Namespaces and mounts are in isolation.py, the system-call filter in seccomp.py; see
docs/security.md.
"""
from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys
from functools import lru_cache
from pathlib import Path
from typing import Iterable

_LINUX = sys.platform.startswith("linux")
_libc = ctypes.CDLL(None, use_errno=True) if _LINUX else None

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    return _libc is not None and _libc.prctl(option, value, 0, 0, 0) == 0


def die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent dies, so nothing outlives the judge or the zygote."""
    _prctl(PR_SET_PDEATHSIG, 9)


def become_subreaper() -> bool:
    """Orphans of the children (setsid, double fork) are re-parented here, where they can be found."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def set_name(name: bytes) -> None:
    """The name ps and top show (at most 15 bytes), for a process forked without an exec of its own."""
    if _libc is not None:
        _libc.prctl(PR_SET_NAME, ctypes.c_char_p(name[:15]), 0, 0, 0)


def no_new_privileges() -> None:
    """No exec can give this process more privilege than it has (setuid binaries, file capabilities)."""
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


def hide_from_tracing() -> None:
    """Not dumpable: a process without CAP_SYS_PTRACE in our namespace cannot trace or read us."""
    _prctl(PR_SET_DUMPABLE, 0)


def open_to_the_judge() -> None:
    """Dumpable again (a child inherits the zygote's hide_from_tracing): the judge, of the same user where the
    grader is not root, reads the child's /proc entries to count the files it holds without a name
    (grader.judge.scratch.held_without_name). Seccomp and Landlock keep the child's own kind from tracing it."""
    _prctl(PR_SET_DUMPABLE, 1)


# -- Landlock ------------------------------------------------------------------------------------------
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_RULE_PATH_BENEATH = 1
_FS = {name: 1 << bit for bit, name in enumerate(
    "execute write_file read_file read_dir remove_dir remove_file make_char make_dir make_reg "
    "make_sock make_fifo make_block make_sym refer truncate ioctl_dev".split())}
_FS_BY_ABI = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}  # how many of those rights each ABI knows
_FILE_RIGHTS = _FS["execute"] | _FS["write_file"] | _FS["read_file"] | _FS["truncate"] | _FS["ioctl_dev"]
READ = _FS["read_file"] | _FS["read_dir"] | _FS["execute"]
WRITE = READ | sum(_FS.values()) & ~_FS["execute"]
DEVICE = _FS["read_file"] | _FS["write_file"] | _FS["ioctl_dev"]
_NET_TCP = 0b11  # bind and connect (ABI 4)
_SCOPES = 0b11  # abstract unix sockets and signals to processes outside this domain (ABI 6)


def landlock_abi() -> int:
    if _libc is None or platform.machine() not in ("x86_64", "aarch64"):
        return 0
    version = _libc.syscall(_SYS_CREATE_RULESET, None, 0, 1)
    return max(0, version)


def restrict_filesystem(rules: Iterable[tuple[str, int]]) -> str | None:
    """Allow only the given (path, rights) beneath each path; deny TCP and outside signals where known.

    Returns the protection's name, or None where Landlock is unavailable.
    """
    abi = landlock_abi()
    if abi == 0:
        return None
    handled = (1 << _FS_BY_ABI.get(abi, 16)) - 1
    net = _NET_TCP if abi >= 4 else 0
    scoped = _SCOPES if abi >= 6 else 0
    attr = struct.pack("QQQ", handled, net, scoped)[: 8 if abi < 4 else 16 if abi < 6 else 24]
    ruleset = _libc.syscall(_SYS_CREATE_RULESET, attr, len(attr), 0)  # type: ignore[union-attr]
    if ruleset < 0:
        return None
    try:
        for path, rights in rules:
            _add_rule(ruleset, path, rights & handled)
        if not _prctl(PR_SET_NO_NEW_PRIVS, 1) or _libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:  # type: ignore[union-attr]
            return None
    finally:
        os.close(ruleset)
    return f"landlock-abi{abi}"


def _add_rule(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = struct.pack("=Qi", rights, fd)
        _libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, rule, 0)  # type: ignore[union-attr]
    finally:
        os.close(fd)


# Not /dev/zero: a shared mapping of it is shared anonymous memory, which no rlimit counts (grader.sandbox.seccomp
# refuses the other ways to make it).
DEVICES = ("/dev/null", "/dev/full", "/dev/urandom", "/dev/random")


# Of /proc, only this process's own entries and machine-wide facts (CPU count, memory) that libraries
# read: other processes' entries (the judge's memory and environment among them) stay closed. Opened by
# the child itself when it writes its rules, never resolved ahead: /proc/self in the zygote is the zygote.
PROC = ("/proc/self", "/proc/thread-self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/loadavg",
        "/proc/sys", "/proc/filesystems", "/proc/version")

# What a GPU's driver opens, granted only where the judge found a CUDA device (grader.judge.accelerator):
# NVIDIA's device files (MIG's capabilities among them), and AMD's for a HIP build of torch.
GPU_DEVICES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-caps",
               *(f"/dev/nvidia{i}" for i in range(16)), "/dev/kfd", "/dev/dri")
# The CUDA driver names the threads it starts from the thread that starts them (glibc's pthread_setname_np
# writes /proc/self/task/<tid>/comm, opened for writing and truncating); refused, CUDA fails to start
# ("Error 304: OS call failed"). Those threads' folders do not exist when the rules are written, so the
# rule covers the folder they will appear in: this process's own threads, none of another process (a
# process the submission forks has a /proc entry of its own, outside it). What it makes writable besides a
# thread's name is each thread's own attributes, none beyond what the process may already change about
# itself: a higher OOM score, its scheduler statistics, its own memory, its security labels as the LSM's
# policy allows; the ID maps, a lower OOM score and the audit login need capabilities the child no longer has.
GPU_THREADS = ("/proc/self/task", READ | _FS["write_file"] | _FS["truncate"])
# What recent drivers read of themselves when CUDA starts (the driver's and UVM's versions and parameters).
GPU_PROC = ("/proc/driver/nvidia", "/proc/driver/nvidia-uvm")


def filesystem_rules(scratch: str, hidden: Iterable[str], accelerator: str | None = None) -> list[tuple[str, int]]:
    """Read the system and Python's import path (minus the hidden folders); write only the scratch dir.
    `accelerator`: the kind of device the judge found (grader.judge.accelerator.driver_kind); `cuda` adds
    what its driver needs, the same for every child of the run, whatever the submission does."""
    rules = ([(root, READ) for root in (*readable_roots(tuple(hidden)), *PROC)]
             + [(dev, DEVICE) for dev in DEVICES] + [(scratch, WRITE)])
    if accelerator == "cuda":
        rules += [(dev, DEVICE) for dev in GPU_DEVICES] + [(path, READ) for path in GPU_PROC] + [GPU_THREADS]
    return rules


@lru_cache(maxsize=4)
def readable_roots(hidden: tuple[str, ...]) -> tuple[str, ...]:
    """What a child may read: system directories and Python's import path, minus the hidden folders.

    Landlock grants whole subtrees, so a directory that contains a hidden folder (an installed grader/
    holding solutions/, and the site-packages holding it; a checkout holding exercises/) is granted entry
    by entry instead. The walk
    costs hundreds of system calls, so the zygote does it once and every child inherits the answer
    (the scratch directory each child adds to its import path has its own rule).
    """
    hidden_paths = [Path(h).resolve() for h in hidden]
    roots = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt", "/sys",
             sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable),
             *(p for p in sys.path if p)]
    granted: list[str] = []
    for root in dict.fromkeys(roots):
        _grant(Path(root), hidden_paths, granted)
    return tuple(granted)


def _grant(path: Path, hidden: list[Path], granted: list[str]) -> None:
    try:
        resolved = path.resolve()
    except OSError:
        return
    if any(resolved == h or h in resolved.parents for h in hidden) or not resolved.exists():
        return
    if not any(resolved in h.parents for h in hidden):
        granted.append(str(resolved))
        return
    for entry in sorted(resolved.iterdir()):
        _grant(entry, hidden, granted)
