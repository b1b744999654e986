"""The child's system-call filter: no socket but AF_UNIX in any mode, no tracing, no kill(-1).

A filter that checks system-call numbers must first be sure which table they index: a process on
x86-64 can also enter the kernel through the i386 table (`int 0x80`, where `socket` is 359) or the
x32 one (numbers with bit 30 set), and those numbers mean other calls. So any call that is not from
the native table ends the process. io_uring runs operations (IORING_OP_SOCKET among them) inside the
kernel without a system call the filter could see, so it is refused as if the kernel lacked it.
Where there is no network namespace (hosted CI runners), this filter is what keeps every datagram in.
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
    "x86_64": (0xC000003E, {"socket": 41, "socketpair": 53, "ptrace": 101, "kill": 62,
                            "process_vm_readv": 310, "process_vm_writev": 311}, 0x40000000),
    "aarch64": (0xC00000B7, {"socket": 198, "socketpair": 199, "ptrace": 117, "kill": 129,
                             "process_vm_readv": 270, "process_vm_writev": 271}, None),
}
_IO_URING = (425, 426, 427)  # io_uring_setup, io_uring_enter, io_uring_register: the same on both
_AF_UNIX = 1

_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_NR, _ARCH_OFFSET, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (arg 0: its low 32 bits)
ALLOW, KILL_PROCESS = 0x7FFF0000, 0x80000000


def _errno(code: int) -> int:
    return 0x00050000 | code


# An instruction: (opcode, k, label if true, label if false); a label: a str on its own.
Line = Union[str, tuple[int, int, "str | None", "str | None"]]


def program(machine: str) -> list[Line]:
    """The filter for one architecture, in labelled form (assemble() resolves the jumps)."""
    arch, nr, foreign = _ARCH[machine]
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
        (_JEQ_K, nr["kill"], "target", None),
        *((_JEQ_K, nr[name], "eperm", None) for name in ("ptrace", "process_vm_readv", "process_vm_writev")),
        *((_JEQ_K, number, "enosys", None) for number in _IO_URING),
        (_RET_K, ALLOW, None, None),
        "family",
        (_LD_W_ABS, _ARG0, None, None),
        (_JEQ_K, _AF_UNIX, "allow", "eacces"),
        "target",
        (_LD_W_ABS, _ARG0, None, None),
        (_JEQ_K, 0xFFFFFFFF, "eperm", "allow"),  # kill(-1, ...): every process it may signal
        "allow", (_RET_K, ALLOW, None, None),
        "eacces", (_RET_K, _errno(errno.EACCES), None, None),
        "eperm", (_RET_K, _errno(errno.EPERM), None, None),
        "enosys", (_RET_K, _errno(errno.ENOSYS), None, None),
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


def install() -> str | None:
    """Install the filter on this process and everything it starts; the protection's name, or None
    where the platform has no filter we know how to write."""
    machine = platform.machine()
    if _libc is None or machine not in _ARCH:
        return None
    code = assemble(program(machine))
    filters = ctypes.create_string_buffer(code)
    prog = ctypes.create_string_buffer(struct.pack("@HP", len(code) // 8, ctypes.addressof(filters)))
    if not _prctl(PR_SET_NO_NEW_PRIVS, 1) or _libc.prctl(PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, prog, 0, 0) != 0:
        return None
    return "seccomp"
