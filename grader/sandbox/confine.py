"""What the OS offers to confine a child beyond rlimits: namespaces, Landlock, seccomp, privilege drop.

Every step is tried and reported; none is required. A step the kernel refuses (no user namespaces
on a hardened CI runner, no Landlock on an old kernel, not Linux at all) is left out of the
`protections` list, and the sandbox still runs with what remains. See docs/security.md.
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import signal
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
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36

CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000

UNPRIVILEGED_UID = 65534  # nobody: used where Landlock is missing and the judge runs as root


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


def hide_from_tracing() -> None:
    """Not dumpable: a process without CAP_SYS_PTRACE in our namespace cannot trace or read us."""
    _prctl(PR_SET_DUMPABLE, 0)


def enter_namespaces() -> list[str]:
    """New user, PID, network and IPC namespaces; the caller must fork, and the child is PID 1 there.

    Root inside is mapped to our own uid, so nothing gains privilege. Returns what was entered
    (empty where unprivileged user namespaces are blocked, e.g. GitHub's Ubuntu 24.04 runners).
    """
    if _libc is None:
        return []
    uid, gid = os.geteuid(), os.getegid()
    if _libc.unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC) != 0:
        return []
    try:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
        Path("/proc/self/gid_map").write_text(f"0 {gid} 1")
    except OSError:
        pass  # unmapped ids still confine; the process is just "nobody" inside
    return ["user-namespace", "pid-namespace", "network-namespace"]


def isolate(sock_fd: int) -> list[str]:
    """Continue as PID 1 of fresh namespaces; this process stays outside only to wait and mirror its end.

    When the judge kills this process group (or the zygote dies), PID 1 goes too, and with it every
    process the submission started, setsid or not: the kernel empties a PID namespace whose init ends.
    """
    entered = enter_namespaces()
    if not entered:
        return []
    pid = os.fork()
    if pid:
        os.close(sock_fd)  # only PID 1 speaks to the judge; its end must close the connection
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
            os.kill(os.getpid(), os.WTERMSIG(status))
        os._exit(os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 70)
    die_with_parent()
    os.setsid()  # its own group: killpg(0) from the submission cannot reach the waiting parent
    return entered


def drop_privileges(scratch: str) -> bool:
    """Run as nobody, owning only the scratch directory (the fallback when Landlock is missing).

    Only where nobody can still read Python itself (a Python under /root, mode 700, could not be).
    """
    if not _LINUX or os.geteuid() != 0 or not all(_world_readable(p) for p in (sys.prefix, sys.base_prefix)):
        return False
    try:
        for root, dirs, files in os.walk(scratch):
            for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
                os.chown(name, UNPRIVILEGED_UID, UNPRIVILEGED_UID)
        os.setgroups([])
        os.setgid(UNPRIVILEGED_UID)
        os.setuid(UNPRIVILEGED_UID)
    except OSError:
        return False
    return True


def _world_readable(path: str) -> bool:
    here = Path(path).resolve()
    return all(os.stat(p).st_mode & 0o005 == 0o005 for p in [here, *here.parents])


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


DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random", "/dev/dri",
           "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", *(f"/dev/nvidia{i}" for i in range(16)))


# Of /proc, only this process's own entries and machine-wide facts (CPU count, memory) that libraries
# read: other processes' entries (the judge's memory and environment among them) stay closed.
PROC = ("/proc/self", "/proc/thread-self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/loadavg",
        "/proc/sys", "/proc/filesystems", "/proc/version")


def filesystem_rules(scratch: str, hidden: Iterable[str]) -> list[tuple[str, int]]:
    """Read the system and Python's import path (minus the hidden folders); write only the scratch dir."""
    return ([(root, READ) for root in readable_roots(tuple(hidden))] + [(dev, DEVICE) for dev in DEVICES]
            + [(scratch, WRITE)])


@lru_cache(maxsize=4)
def readable_roots(hidden: tuple[str, ...]) -> tuple[str, ...]:
    """What a child may read: system directories and Python's import path, minus the hidden folders.

    Landlock grants whole subtrees, so a directory that contains a hidden folder (site-packages
    holding solutions/, a checkout holding exercises/) is granted entry by entry instead. The walk
    costs hundreds of system calls, so the zygote does it once and every child inherits the answer
    (the scratch directory each child adds to its import path has its own rule).
    """
    hidden_paths = [Path(h).resolve() for h in hidden]
    roots = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt", "/sys", *PROC,
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


# -- seccomp -------------------------------------------------------------------------------------------
_ARCH = {
    "x86_64": (0xC000003E, {"socket": 41, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
                            "kill": 62}),
    "aarch64": (0xC00000B7, {"socket": 198, "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
                             "kill": 129}),
}
_AF_UNIX = 1
_LD_W_ABS, _JEQ_K, _RET_K = 0x20, 0x15, 0x06
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000


def deny_network_and_tracing() -> str | None:
    """A seccomp filter: sockets other than AF_UNIX fail with EACCES; ptrace, process_vm_* and kill(-1)
    with EPERM. Inherited by every process the child starts."""
    spec = _ARCH.get(platform.machine())
    if _libc is None or spec is None:
        return None
    arch, nr = spec
    program = [  # (code, jump if true, jump if false, k); jumps count instructions after this one
        (_LD_W_ABS, 0, 0, 4),  # 0: seccomp_data.arch
        (_JEQ_K, 1, 0, arch),  # 1: our ABI -> 3
        (_RET_K, 0, 0, _ALLOW),  # 2: another ABI (x32, compat): leave it alone rather than break it
        (_LD_W_ABS, 0, 0, 0),  # 3: seccomp_data.nr
        (_JEQ_K, 6, 0, nr["socket"]),  # 4: -> 11, the family check
        (_JEQ_K, 9, 0, nr["kill"]),  # 5: -> 15, the target check
        (_JEQ_K, 2, 0, nr["ptrace"]),  # 6: -> 9
        (_JEQ_K, 1, 0, nr["process_vm_readv"]),  # 7: -> 9
        (_JEQ_K, 0, 1, nr["process_vm_writev"]),  # 8: -> 9, else 10
        (_RET_K, 0, 0, _ERRNO | errno.EPERM),  # 9
        (_RET_K, 0, 0, _ALLOW),  # 10
        (_LD_W_ABS, 0, 0, 16),  # 11: socket's first argument, the address family (low 32 bits)
        (_JEQ_K, 1, 0, _AF_UNIX),  # 12: -> 14
        (_RET_K, 0, 0, _ERRNO | errno.EACCES),  # 13
        (_RET_K, 0, 0, _ALLOW),  # 14
        (_LD_W_ABS, 0, 0, 16),  # 15: kill's first argument
        (_JEQ_K, 0, 1, 0xFFFFFFFF),  # 16: kill(-1, ...), every process it may signal -> 17, else 18
        (_RET_K, 0, 0, _ERRNO | errno.EPERM),  # 17
        (_RET_K, 0, 0, _ALLOW),  # 18
    ]
    filters = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *ins) for ins in program))
    prog = ctypes.create_string_buffer(struct.pack("@HP", len(program), ctypes.addressof(filters)))
    if not _prctl(PR_SET_NO_NEW_PRIVS, 1) or _libc.prctl(PR_SET_SECCOMP, 2, prog, 0, 0) != 0:
        return None
    return "seccomp"
