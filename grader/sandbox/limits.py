"""The trusted bootstrap a child runs before any submission code: resource caps and output capture.

Each cap degrades to "not active" where the OS refuses it; the list of what did take effect is
reported back so the result says which protections were really on.
"""
from __future__ import annotations

import io
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any

try:
    import resource
except ImportError:  # Windows: no rlimits; the judge's deadlines still apply
    resource = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 6 * 1024**3
    cpu_seconds: int = 600
    file_bytes: int = 64 * 1024**2
    open_files: int = 256
    processes: int = 512
    # What the scratch folder may hold beyond the files copied into it (a tmpfs of that size where the
    # child has a mount namespace, else the judge's watch; see isolation.py and grader/judge/scratch.py).
    disk_bytes: int = 256 * 1024**2

    def to_json(self) -> dict[str, int]:
        return {
            "memory_bytes": self.memory_bytes,
            "cpu_seconds": self.cpu_seconds,
            "file_bytes": self.file_bytes,
            "open_files": self.open_files,
            "processes": self.processes,
            "disk_bytes": self.disk_bytes,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Limits":
        return cls(**{k: int(v) for k, v in data.items()})


def apply(limits: Limits, count_processes: bool = False) -> list[str]:
    """Cap the process; RLIMIT_DATA rather than RLIMIT_AS because AS breaks CUDA's address reservations.

    The memory cap is what the submission may add to what the child holds when it starts (inherited_data).

    The process cap is set only in a user namespace: outside one, RLIMIT_NPROC counts every process
    of the user (and exempts root), so it would either block innocent code or stop nothing.
    """
    active: list[str] = []
    if resource is None:
        return active
    caps = [
        ("memory-limit", "RLIMIT_DATA", limits.memory_bytes + inherited_data()),
        ("cpu-limit", "RLIMIT_CPU", limits.cpu_seconds),
        ("file-size-limit", "RLIMIT_FSIZE", limits.file_bytes),
        ("open-files-limit", "RLIMIT_NOFILE", limits.open_files),
        ("no-core-dumps", "RLIMIT_CORE", 0),
    ]
    if count_processes:
        caps.append(("process-limit", "RLIMIT_NPROC", limits.processes))
    for name, which, value in caps:
        rlimit = getattr(resource, which, None)
        if rlimit is None:
            continue
        try:
            resource.setrlimit(rlimit, (value, value))
        except (ValueError, OSError):
            continue
        active.append(name)
    if hasattr(signal, "SIGXFSZ"):
        # Past the file-size cap a write fails with EFBIG instead of killing the process.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return active


def inherited_data() -> int:
    """Bytes of data memory the process holds already (VmData), nearly all of it torch's import, inherited from
    the zygote: ~140 MB for a CPU build of torch, ~700 MB for a CUDA build, which `pip install torch` gives on
    Linux even without a GPU. RLIMIT_DATA counts it, so a cap set without it gave a submission 560 MB less on
    one build than on the other, and mapped nothing new at all under a cap below it."""
    try:
        return status_bytes("self", b"VmData")
    except (OSError, ValueError, IndexError):
        return 0


def status_bytes(pid: int | str, field: bytes) -> int:
    """One of the kB fields of /proc/PID/status (VmData, RssShmem), in bytes; 0 where the kernel lists no such
    field. OSError where the process is gone, ValueError or IndexError where the line is not a number."""
    with open(f"/proc/{pid}/status", "rb") as status:
        for line in status:
            if line.startswith(field + b":"):
                return int(line.split()[1]) * 1024
    return 0


def capture_output(fd: int, keep_bytes: int = 1024 * 1024) -> None:
    """Send fds 1 and 2 (print, C extensions, subprocesses) to the judge's output file, emptied first
    (a replay's output replaces the last child's), keeping its recent end.

    The judge opened the file, outside the scratch folder, before any student code ran, and reads it
    back through its own descriptor: nothing the submission does to paths can change what it reads.
    Python-level writes go through a stream that never fails: past `keep_bytes` the file is emptied
    and starts again, so a print flood costs neither the disk nor the answers that follow it.
    """
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)  # the offset is the judge's too: a replay starts at the start again
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr = _RecentOutput(1, keep_bytes)


class _RecentOutput(io.TextIOBase):
    def __init__(self, fd: int, keep_bytes: int) -> None:
        self.fd = fd
        self.keep_bytes = keep_bytes

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        data = str(text).encode("utf-8", errors="replace")
        try:
            size = os.fstat(self.fd).st_size  # C-level writes to fd 1 and 2 count too
            if size + len(data) > self.keep_bytes:
                half = self.keep_bytes // 2
                recent = os.pread(self.fd, half, max(0, size - half))
                os.ftruncate(self.fd, 0)
                os.lseek(self.fd, 0, os.SEEK_SET)
                os.write(self.fd, b"[earlier output dropped]\n" + recent[-half:])
            os.write(self.fd, data[-self.keep_bytes // 2:])
        except OSError:
            pass
        return len(text)
