"""Namespaces, mounts and the uid a submission runs as: the walls the kernel keeps around a child.

One call, `isolate`, turns a freshly forked child into PID 1 of its own PID, network, IPC and mount
namespaces, with a /proc of its own (so it sees no other process: not the zygote, not a classmate's
sandbox), its scratch folder on a size-capped tmpfs (so it cannot fill the disk the gradebook and the
other students share) and, where the grader runs as root, a plan to become a uid of its own before
any student code runs: root in a user namespace mapped to the real root would bypass every file
permission on the machine and every process cap.

A grader run as root needs no user namespace for any of this; an unprivileged one enters one first.
Where the kernel refuses namespaces (hardened CI runners), `isolate` returns nothing and the child
runs with what remains (Landlock, seccomp, rlimits, the judge's disk watch); see docs/security.md.
"""
from __future__ import annotations

import ctypes
import functools
import os
import shutil
import signal
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from grader.sandbox.confine import _libc, _prctl, die_with_parent
from grader.sandbox.folders import ENTRIES, READ_ONLY, usage, walk

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2

PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
_CAP_VERSION_3 = 0x20080522
_LAST_CAP = 63

# Each sandbox of a root-run grader gets a uid of its own: this base plus the host pid of the process the
# zygote forked for it (PID 1 of its namespace, or the one waiting for PID 1), unique among live sandboxes.
# Processes of one uid share RLIMIT_NPROC and may signal and read each other, so classmates graded side by
# side never share one. The range lies above the ranges Linux distributions hand to users, services and
# containers (systemd's end at 0x6FFFFFFF).
SANDBOX_UID_BASE = 0x70000000


@dataclass
class Isolation:
    """What `isolate` set up; `uid`: the uid to become once the bootstrap is done (None: stay)."""

    protections: list[str] = field(default_factory=list)
    uid: int | None = None

    @property
    def counts_processes(self) -> bool:
        """RLIMIT_NPROC means something only for a uid of our own or inside a user namespace: outside
        one it counts every process of the user, and exempts root."""
        return self.uid is not None or "user-namespace" in self.protections


def isolate(sock_fd: int, scratch: str, disk_bytes: int, readable: Iterable[str], pid_one: bool = False) -> Isolation:
    """Continue as PID 1 of fresh namespaces. `pid_one`: the zygote forked this process as PID 1 of a PID namespace
    of its own already (PidNamespaces); otherwise this process stays outside only to wait and mirror its end.

    When the judge kills this process group (or the zygote dies), PID 1 goes too, and with it every
    process the submission started, setsid or not: the kernel empties a PID namespace whose init ends.
    """
    root = os.geteuid() == 0
    if pid_one:  # PID 1 already, whatever else the kernel refuses
        host_pid = int(os.readlink("/proc/self"))  # the host's /proc names us as the host does, until ours is mounted
        entered = _enter(root, CLONE_NEWNET | CLONE_NEWIPC) or ["pid-namespace"]
    else:
        host_pid = os.getpid()
        entered = _enter(root, CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC)
        if not entered:
            return Isolation()
        _wait_for_pid_one(sock_fd)
    readable = tuple(readable)
    isolation = Isolation(entered)
    opened: frozenset[str] = frozenset()
    if "mount-namespace" in entered:
        walls, opened = _mount_walls(scratch, disk_bytes, readable if root else ())
        isolation.protections += walls
    if root:  # not root inside a user namespace: that root is the grader's own uid outside
        isolation.uid = _own_uid(host_pid, readable, opened)
    return isolation


def _wait_for_pid_one(sock_fd: int) -> None:
    """Fork PID 1 of the PID namespace just entered and return in it; this process waits for it and ends as it
    ends, by the same signal or with the same code."""
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


class PidNamespaces:
    """A root-run zygote's forks, each PID 1 of a PID namespace of its own: the child then needs no process
    outside its namespace to wait for it (`isolate`'s waiter costs a fork and an exit of the zygote's image,
    ~6 ms of CPU a submission). Only root: an unprivileged zygote would have to enter a user namespace for
    good, whose uid all its children would share. Where the kernel refuses, a fork is an ordinary one."""

    def __init__(self) -> None:
        self.own: int | None = None  # this process's own PID namespace, to come back to after each fork
        if _libc is not None and os.geteuid() == 0:
            try:
                self.own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                pass

    def fresh(self) -> bool:
        """Make the next fork PID 1 of a new PID namespace; False where it will not be."""
        return self.reset() and _libc is not None and _libc.unshare(CLONE_NEWPID) == 0

    def reset(self) -> bool:
        """Make the next fork an ordinary child in this process's own PID namespace again."""
        return self.own is not None and _libc is not None and _libc.setns(self.own, CLONE_NEWPID) == 0


def _enter(root: bool, shared: int) -> list[str]:
    """unshare the namespaces (`shared`, and a mount namespace where the kernel allows); an unprivileged grader
    enters a user namespace too, its root mapped to our own uid. Returns the protections entered, the PID
    namespace among them (the zygote's fork may have entered it already); empty where the kernel refuses."""
    if _libc is None:
        return []
    user = 0 if root else CLONE_NEWUSER
    ids = os.geteuid(), os.getegid()  # outside: once in a user namespace, unmapped ids read as nobody
    for flags, entered in ((shared | user | CLONE_NEWNS, ["mount-namespace"]), (shared | user, [])):
        if _libc.unshare(flags) == 0:
            break
    else:
        return []
    if not root:
        _map_ids(*ids)
        entered.append("user-namespace")
    return ["pid-namespace", "network-namespace", *entered]


def _map_ids(uid: int, gid: int) -> None:
    """Root inside is our uid outside. A process may write its own maps only while dumpable, and a child
    of the zygote (which is not, see confine.hide_from_tracing) is not until it says so."""
    _prctl(PR_SET_DUMPABLE, 1)
    try:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
        Path("/proc/self/gid_map").write_text(f"0 {gid} 1")
    except OSError:
        pass  # unmapped ids still confine; the process is just "nobody" inside


# -- mounts ---------------------------------------------------------------------------------------------
def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> bool:
    def text(value: str | None) -> bytes | None:
        return None if value is None else os.fsencode(value)

    assert _libc is not None
    return _libc.mount(text(source), text(target), text(fstype), flags, text(data)) == 0


def _mount_walls(scratch: str, disk_bytes: int, readable: tuple[str, ...]) -> tuple[list[str], frozenset[str]]:
    """In our own mount namespace: a /proc of our PID namespace, the readable paths reachable by `uid`,
    and the scratch folder on a tmpfs of its own size. Returns the protections, and the folders `expose` opened."""
    if not _mount(None, "/", None, MS_REC | MS_PRIVATE):  # nothing we mount may reach the host's tree
        return [], frozenset()
    done = []
    if _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC):
        done.append("private-proc")
    opened = expose([*readable, scratch], survey(readable).closed) if readable else frozenset()
    if _scratch_on_tmpfs(scratch, disk_bytes):
        done.append("disk-quota")
    return done, opened


def expose(paths: Iterable[str], known: Mapping[str, str | None]) -> frozenset[str]:
    """Make each path reachable for any uid without opening anything else: a folder that others may not
    enter (a Python installed under /root, mode 700) is covered by an empty tmpfs, and only the paths
    below it that we need are bound back into place. What else it held (SSH keys, the instructor's
    files) is no longer there at all. `known`: the closed folder above each path already surveyed (a path
    not in it is looked at now). Returns the folders so opened."""
    paths = list(paths)
    closed = {folder for folder in (known[p] if p in known else _first_closed_folder(p) for p in paths)
              if folder is not None and not folder.startswith(("/proc/", "/sys/"))}
    opened = set()
    for folder in sorted(closed):  # the outermost closed folder of each path: none lies inside another
        inside = [p for p in paths if p.startswith(folder + "/")]
        handles = [os.open(p, os.O_PATH | os.O_CLOEXEC) for p in inside]
        try:
            if _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755"):
                for path, handle in zip(inside, handles):
                    _bind_back(path, handle)
                opened.add(folder)
        finally:
            for handle in handles:
                os.close(handle)
    return frozenset(opened)


@dataclass(frozen=True)
class Survey:
    """The paths a child reads, as the host's tree shows them: the outermost folder above each that others may
    not enter (None: none), and whether others may read every path itself."""

    closed: dict[str, str | None]
    open_to_others: bool

    def reachable(self, opened: frozenset[str] = frozenset()) -> bool:
        """Whether a uid of no privilege can read every path, once `expose` has opened the folders `opened`."""
        return self.open_to_others and all(folder is None or folder in opened for folder in self.closed.values())


@functools.lru_cache(maxsize=4)
def survey(readable: tuple[str, ...]) -> Survey:
    """The host's tree around the paths a child reads: ~500 stat calls that the zygote makes once, before any
    child has a mount of its own, for every child to inherit, as it walks readable_roots once (grader.sandbox.
    confine); a mode changed during a run is seen by the next zygote."""
    return Survey({path: _first_closed_folder(path) for path in readable},
                  all(_others_may_read(path) for path in readable))


def _first_closed_folder(path: str) -> str | None:
    """The outermost folder above `path` that others may not enter, if any."""
    parts = Path(path).parts
    for depth in range(1, len(parts)):
        folder = os.path.join(*parts[:depth])
        try:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return folder
        except OSError:
            return None
    return None


def _bind_back(path: str, handle: int) -> None:
    is_dir = stat.S_ISDIR(os.fstat(handle).st_mode)
    os.makedirs(path if is_dir else os.path.dirname(path), mode=0o755, exist_ok=True)
    if not is_dir:
        open(path, "a").close()
    _mount(f"/proc/self/fd/{handle}", path, None, MS_BIND | MS_REC)


def _scratch_on_tmpfs(scratch: str, disk_bytes: int) -> bool:
    """The judge's copy of the submission, moved onto a tmpfs capped at what it holds plus `disk_bytes`;
    writes past that fail with ENOSPC. The tmpfs goes with the namespace: nothing to clean up."""
    original = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        used, entries = usage(scratch)
        options = f"size={used + disk_bytes},nr_inodes={entries + ENTRIES},mode=0700"
        if not _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options):
            return False
        try:
            shutil.copytree(f"/proc/self/fd/{original}", scratch, symlinks=True, dirs_exist_ok=True)
        except OSError:  # shutil.Error too: the judge's copy stays, watched instead
            _libc.umount2(os.fsencode(scratch), MNT_DETACH)  # type: ignore[union-attr]
            return False
    finally:
        os.close(original)
    return True


# -- who the child runs as ----------------------------------------------------------------------------
def _others_may_read(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # nothing there to read
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return mode & need == need


def own_uid(readable: Iterable[str]) -> int | None:
    """Without namespaces, a root grader can still drop to a uid of its own where that uid can read
    Python where it lies (it cannot under a /root of mode 700: then the child stays uid 0, without
    capabilities, narrowed by Landlock)."""
    return _own_uid(os.getpid(), tuple(readable))


def _own_uid(pid: int, readable: tuple[str, ...], opened: frozenset[str] = frozenset()) -> int | None:
    """The uid a root-run grader's sandbox becomes (None: not root, or that uid could not run Python, the
    folders `expose` opened being open)."""
    if os.geteuid() != 0 or not survey(readable).reachable(opened):
        return None
    return SANDBOX_UID_BASE + pid


def become(uid: int, scratch: str) -> None:
    """Drop to `uid` (its own group, no others), owning only the scratch folder: no capability is left in
    any namespace, so file permissions and RLIMIT_NPROC hold as for any user. A file the judge copied
    read-only (grader.sandbox.folders.READ_ONLY: the files beside a single submission) stays root's, so the
    submission can read it but neither write it nor make it writable. Dumpable again afterwards, and dying
    with its parent again (a uid change clears both), so the submission can read its own /proc/self and
    ends when its parent (the zygote, or the process waiting for it) is killed. The folder is walked as the judge walks
    it (grader.sandbox.folders.walk): what an earlier child left there, however deep, cannot stop a replay."""
    os.chown(scratch, uid, uid)
    for folder, name, info, _ in walk(scratch):
        if stat.S_IMODE(info.st_mode) != READ_ONLY:
            os.chown(name, uid, uid, dir_fd=folder, follow_symlinks=False)
    _empty_bounding_set()
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    _prctl(PR_SET_DUMPABLE, 1)
    die_with_parent()  # a uid change clears it too: without it, a judge killed outright would leave this running


def drop_capabilities() -> None:
    """No capability left, now or after an exec: the bounding set emptied, then every set cleared.
    Root inside a user namespace keeps none over the files of the user it is mapped to."""
    _empty_bounding_set()
    if _libc is None:
        return
    head = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _libc.capset(head, data)


def _empty_bounding_set() -> None:
    """Needs CAP_SETPCAP: done while the bootstrap still has it."""
    if _libc is None:
        return
    for cap in range(_LAST_CAP + 1):
        _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
