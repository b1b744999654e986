"""The child's system-call filter: no socket but AF_UNIX in any mode, no tracing, no kill(-1), no
connection to anything outside, no memory or IPC that outlives the grade or escapes its caps.

A filter that checks system-call numbers must first be sure which table they index: a process on
x86-64 can also enter the kernel through the i386 table (`int 0x80`, where `socket` is 359) or the
x32 one (numbers with bit 30 set), and those numbers mean other calls. So any call that is not from
the native table ends the process. io_uring runs operations (IORING_OP_SOCKET among them) inside the
kernel without a system call the filter could see, so it is refused as if the kernel lacked it.
Where there is no network namespace (hosted CI runners), this filter is what keeps every datagram in.

A Unix socket reaches any listener whose file the process can write (D-Bus, journald, a mounted
docker.sock), in every mode: `connect` is refused, and only stream and seqpacket sockets are made (their
`sendto`/`sendmsg` ignore or refuse an address; a datagram socket's would reach the listener unconnected).
The child speaks to the judge over a socketpair it inherits, and CUDA's driver, which asks
nvidia-persistenced over a socket, carries on when refused.
RLIMIT_DATA counts data mappings only: a mapping that grows down (MAP_GROWSDOWN, a stack's kind) is counted as
stack, which no cap limits for a mapping made so (fourteen of 0.5 GiB, populated, held 7 GiB under a 6 GiB cap),
so it is refused for everyone, CUDA's driver included (it makes none). And RLIMIT_DATA counts private memory
only: shared anonymous mappings (`mmap.mmap(-1, n)`), memfd_create and
System V shared memory would hold memory past the cap, and System V IPC outlives the process where there is
no IPC namespace, for the next grade to read. So they are refused (the sandbox never uses multiprocessing).
NVIDIA's CUDA driver needs the first two when it starts (a memfd, and shared anonymous memory: refused, CUDA
says "out of memory"), so where the judge found a CUDA device they are allowed, and the whole submission's
memory cap counts the shared memory the sandbox's processes hold (grader.judge.memory).
A submission's processes stay in the session and process group the zygote gave its child: `setsid` and
`setpgid` return success and do nothing. So the judge's one kill of that group ends every process the
submission started, however many and however fast (300 spinning `setsid` processes once outlived their
zygote's sweep), and where the kernel shares the CPU between sessions (autogroup) a submission gets one
share of the machine, not one per process. Code that starts a session of its own (`start_new_session`)
carries on as before, inside the group.
"""
from __future__ import annotations

import ctypes
import errno
import platform
import struct
from typing import Union

from grader.sandbox.confine import PR_SET_NO_NEW_PRIVS, _libc, _prctl

PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

# (the kernel's audit architecture, the native table's numbers, the first number of a foreign table
# that shares the architecture's audit value: x32 on x86-64)
_ARCH = {
    "x86_64": (0xC000003E, {"socket": 41, "socketpair": 53, "connect": 42, "ptrace": 101, "kill": 62,
                            "process_vm_readv": 310, "process_vm_writev": 311, "mmap": 9, "memfd_create": 319,
                            "setpgid": 109, "setsid": 112},
               0x40000000),
    "aarch64": (0xC00000B7, {"socket": 198, "socketpair": 199, "connect": 203, "ptrace": 117, "kill": 129,
                             "process_vm_readv": 270, "process_vm_writev": 271, "mmap": 222,
                             "memfd_create": 279, "setpgid": 154, "setsid": 157}, None),
}
# System V IPC (shmget, shmat, shmctl, shmdt, semget, semop, semctl, semtimedop, msgget, msgsnd, msgrcv,
# msgctl): every call, since an existing segment is attached by its id alone.
_SYSV_IPC = {"x86_64": (29, 30, 31, 67, 64, 65, 66, 220, 68, 69, 70, 71), "aarch64": tuple(range(186, 198))}
_IO_URING = (425, 426, 427)  # io_uring_setup, io_uring_enter, io_uring_register: the same on both
_AF_UNIX = 1
_SOCK_STREAM, _SOCK_SEQPACKET, _SOCK_TYPE = 1, 5, 0xF  # a socket's type, less SOCK_CLOEXEC and SOCK_NONBLOCK
_MAP_SHARED, _MAP_SHARED_VALIDATE, _MAP_ANONYMOUS, _MAP_GROWSDOWN = 0x01, 0x03, 0x20, 0x0100

_LD_W_ABS, _JEQ_K, _JGE_K, _AND_K, _RET_K = 0x20, 0x15, 0x35, 0x54, 0x06
# offsets in struct seccomp_data (of an argument, its low 32 bits)
_NR, _ARCH_OFFSET, _ARG0, _ARG1, _ARG3 = 0, 4, 16, 24, 40
ALLOW, KILL_PROCESS = 0x7FFF0000, 0x80000000


def _errno(code: int) -> int:
    return 0x00050000 | code


# An instruction: (opcode, k, label if true, label if false); a label: a str on its own.
Line = Union[str, tuple[int, int, "str | None", "str | None"]]


def program(machine: str, accelerator: str | None = None) -> list[Line]:
    """The filter for one architecture, in labelled form (assemble() resolves the jumps). `accelerator`: the
    kind of device the judge found (grader.judge.accelerator.driver_kind); NVIDIA's CUDA driver makes a memfd
    when it starts (refused, CUDA fails with error 304) and maps shared anonymous memory, so `cuda` leaves both
    to it: each memfd is then a file the file-size and open-file caps count (64 MiB each, 256 files), and the
    judge's watch counts what is mapped shared (grader.judge.client)."""
    arch, nr, foreign = _ARCH[machine]
    driver = accelerator == "cuda"
    refused = (*_IO_URING, *_SYSV_IPC[machine], *((nr["memfd_create"],) if not driver else ()))
    lines: list[Line] = [
        (_LD_W_ABS, _ARCH_OFFSET, None, None),
        (_JEQ_K, arch, "native", "kill"),
        "native",
        (_LD_W_ABS, _NR, None, None),
    ]
    if foreign is not None:
        lines.append((_JGE_K, foreign, "kill", None))
    lines += [
        (_JEQ_K, nr["socket"], "family", None),
        (_JEQ_K, nr["socketpair"], "family", None),
        (_JEQ_K, nr["connect"], "eacces", None),
        (_JEQ_K, nr["kill"], "target", None),
        (_JEQ_K, nr["mmap"], "mapping", None),
        *((_JEQ_K, nr[name], "eperm", None) for name in ("ptrace", "process_vm_readv", "process_vm_writev")),
        *((_JEQ_K, number, "enosys", None) for number in refused),
        *((_JEQ_K, nr[name], "done", None) for name in ("setsid", "setpgid")),
        (_RET_K, ALLOW, None, None),
        "family",
        (_LD_W_ABS, _ARG0, None, None),
        (_JEQ_K, _AF_UNIX, None, "eacces"),
        (_LD_W_ABS, _ARG1, None, None),
        (_AND_K, _SOCK_TYPE, None, None),
        (_JEQ_K, _SOCK_STREAM, "allow", None),
        (_JEQ_K, _SOCK_SEQPACKET, "allow", "eacces"),
        "mapping",  # a stack that grows down, or (but for a CUDA driver) shared and anonymous: no rlimit counts it
        (_LD_W_ABS, _ARG3, None, None),
        (_AND_K, _MAP_GROWSDOWN, None, None),
        (_JEQ_K, _MAP_GROWSDOWN, "enomem", None),
        *(((_RET_K, ALLOW, None, None),) if driver else ()),
        (_LD_W_ABS, _ARG3, None, None),
        (_AND_K, _MAP_ANONYMOUS | _MAP_SHARED_VALIDATE, None, None),
        (_JEQ_K, _MAP_ANONYMOUS | _MAP_SHARED, "enomem", None),
        (_JEQ_K, _MAP_ANONYMOUS | _MAP_SHARED_VALIDATE, "enomem", "allow"),
        "target",
        (_LD_W_ABS, _ARG0, None, None),
        (_JEQ_K, 0xFFFFFFFF, "eperm", "allow"),  # kill(-1, ...): every process it may signal
        "allow", (_RET_K, ALLOW, None, None),
        "eacces", (_RET_K, _errno(errno.EACCES), None, None),
        "eperm", (_RET_K, _errno(errno.EPERM), None, None),
        "enosys", (_RET_K, _errno(errno.ENOSYS), None, None),
        "enomem", (_RET_K, _errno(errno.ENOMEM), None, None),
        "done", (_RET_K, _errno(0), None, None),  # the call returns 0 and is not made
        "kill", (_RET_K, KILL_PROCESS, None, None),
    ]
    return lines


def assemble(lines: list[Line]) -> bytes:
    """Classic BPF with jumps written as labels: a jump counts the instructions it skips, which is
    where hand-counted filters go wrong. A missing label means "the next instruction"."""
    where: dict[str, int] = {}
    instructions: list[tuple[int, int, str | None, str | None]] = []
    for line in lines:
        if isinstance(line, str):
            where[line] = len(instructions)
        else:
            instructions.append(line)
    code = []
    for at, (op, k, yes, no) in enumerate(instructions):
        jt, jf = ((where[label] - at - 1) if label else 0 for label in (yes, no))
        if not (0 <= jt < 256 and 0 <= jf < 256):
            raise ValueError(f"jump out of reach at instruction {at}")
        code.append(struct.pack("HBBI", op, jt, jf, k))
    return b"".join(code)


def install(accelerator: str | None = None) -> str | None:
    """Install the filter on this process and everything it starts; the protection's name, or None
    where the platform has no filter we know how to write."""
    machine = platform.machine()
    if _libc is None or machine not in _ARCH:
        return None
    code = assemble(program(machine, accelerator))
    filters = ctypes.create_string_buffer(code)
    prog = ctypes.create_string_buffer(struct.pack("@HP", len(code) // 8, ctypes.addressof(filters)))
    if not _prctl(PR_SET_NO_NEW_PRIVS, 1) or _libc.prctl(PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, prog, 0, 0) != 0:
        return None
    return "seccomp"
