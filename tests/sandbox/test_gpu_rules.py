"""What a child may open where the judge found a GPU, and nowhere else.

CUDA fails to start in a child that cannot name the threads its driver starts (it writes their
/proc/self/task/<tid>/comm from the thread that starts them), or cannot make the memfd and the shared anonymous
mapping its driver makes (seen on an H200: "CUDA error: out of memory"). The rule set is data (a test reads what it
grants and when), and a real sandbox shows the grant doing what the driver needs without a GPU: a
submission names another of its threads as the driver does, refused where the judge found no CUDA device
and let through where it did (GRADER_ACCELERATOR=cuda), while everything else stays as closed."""
from __future__ import annotations

import errno
import mmap
import struct

import pytest

from conftest import SOLUTION, Grade
from grader.judge.accelerator import driver_kind
from grader.sandbox import confine

SCRATCH = "/tmp/scratch-of-a-child"
NAMES_A_THREAD = SOLUTION.read_text(encoding="utf-8") + '''

import ctypes, errno, os, threading

def _attempt(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
        return "written"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))

_libc = ctypes.CDLL(None, use_errno=True)
_libc.pthread_setname_np.argtypes = [ctypes.c_ulong, ctypes.c_char_p]
_stop = threading.Event()
_helper = threading.Thread(target=_stop.wait)
_helper.start()
_code = _libc.pthread_setname_np(_helper.ident, b"cuda-EvtHandlr")
print("THREAD-NAMED", errno.errorcode.get(_code, "ok") if _code else "ok")
print("THREAD-NAME", open(f"/proc/self/task/{_helper.native_id}/comm").read().strip())
print("PROCESS-OOM", _attempt("/proc/self/oom_score_adj", "500"))
print("OUTSIDE", _attempt(os.path.join(os.path.dirname(os.__file__), "grader-was-here.txt"), "x"))
try:
    os.close(os.memfd_create("cuda-driver"))
    print("MEMFD ok")
except OSError as exc:
    print("MEMFD", errno.errorcode.get(exc.errno, str(exc.errno)))
import mmap
try:
    mmap.mmap(-1, 1 << 20).close()
    print("SHARED ok")
except OSError as exc:
    print("SHARED", errno.errorcode.get(exc.errno, str(exc.errno)))
_stop.set()
_helper.join()
'''


def rights(rules: list[tuple[str, int]], path: str) -> int:
    return sum({r for p, r in rules if p == path})


def test_no_gpu_no_grant() -> None:
    """Without a CUDA device the child may write nowhere but its scratch folder and opens no GPU device."""
    rules = confine.filesystem_rules(SCRATCH, [])
    written = {path for path, r in rules if r & confine._FS["write_file"] and path not in confine.DEVICES}
    assert written == {SCRATCH}
    assert not {path for path, _ in rules} & {*confine.GPU_DEVICES, confine.GPU_THREADS[0]}


def test_a_cuda_device_grants_its_driver_and_nothing_else() -> None:
    """With one: the driver's device files, and writing (not making, removing or renaming) beneath the
    child's own threads' folder, which is the only writable path outside the scratch folder."""
    plain = confine.filesystem_rules(SCRATCH, [])
    gpu = confine.filesystem_rules(SCRATCH, [], "cuda")
    added = [rule for rule in gpu if rule not in plain]
    assert added == ([(dev, confine.DEVICE) for dev in confine.GPU_DEVICES]
                     + [(path, confine.READ) for path in confine.GPU_PROC] + [confine.GPU_THREADS])
    assert {"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm", "/dev/kfd", "/dev/dri"} <= set(confine.GPU_DEVICES)
    path, granted = confine.GPU_THREADS
    assert path == "/proc/self/task"  # opened by the child itself: its own pid's folder, never another's
    assert granted == confine.READ | confine._FS["write_file"] | confine._FS["truncate"]
    for right in ("make_reg", "make_dir", "remove_file", "remove_dir", "refer", "make_sym", "ioctl_dev"):
        assert not granted & confine._FS[right], right


@pytest.mark.parametrize(("device", "kind"), [
    ("cuda", "cuda"), ("cuda:1", "cuda"), ("cpu", None), ("mps", None), (None, None), ("", None),
    ("not-a-device", None),
])
def test_the_grant_follows_the_judges_device(device: str | None, kind: str | None) -> None:
    assert driver_kind(device) == kind


def test_a_child_names_its_threads_only_where_the_judge_found_cuda(grade_file: Grade,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver's own step, in a real sandbox: naming a thread it started. Everything else a child could
    not write stays closed, and the protections the result lists are the same either way, but for the judge's
    watch of the shared memory the driver's filter lets through."""
    if not confine.landlock_abi():
        pytest.skip("no Landlock on this kernel: nothing is refused to grant")
    protections = []
    for device, named, memfd, shared in (("cuda", "ok", "ok", "ok"), ("cpu", "EACCES", "ENOSYS", "ENOMEM")):
        monkeypatch.setenv("GRADER_ACCELERATOR", device)
        run = grade_file(NAMES_A_THREAD, "3.1")
        said = dict(line.split(" ", 1) for line in run.output_tail.splitlines() if " " in line)
        assert said.get("THREAD-NAMED") == named, (device, run.output_tail)
        assert (said.get("THREAD-NAME") == "cuda-EvtHandlr") == (named == "ok"), run.output_tail
        assert said.get("PROCESS-OOM") == "EACCES" and said.get("OUTSIDE") in ("EACCES", "EROFS"), run.output_tail
        assert said.get("MEMFD") == memfd, run.output_tail  # the CUDA driver makes one when it starts
        assert said.get("SHARED") == shared, run.output_tail  # and maps shared anonymous memory
        assert [e.score for e in run.exercises] == [e.max_score for e in run.exercises]
        protections.append(run.protections)
    # the same protections with or without a GPU: shared memory is held by the whole submission's memory cap
    assert list(protections[0]) == list(protections[1]) and any(p.startswith("landlock-abi") for p in protections[0])


def test_the_system_call_filter_leaves_memfd_to_a_cuda_driver_only() -> None:
    from grader.sandbox import seccomp

    memfd = {"x86_64": 319, "aarch64": 279}
    for machine, number in memfd.items():
        refused = {line[1] for line in seccomp.program(machine) if isinstance(line, tuple) and line[2] == "enosys"}
        assert number in refused
        refused = {line[1] for line in seccomp.program(machine, "cuda") if isinstance(line, tuple) and line[2] == "enosys"}
        assert number not in refused and refused  # System V IPC and io_uring stay refused


def filtered(machine: str, accelerator: str | None, call: str, *args: int) -> int:
    """What the filter returns for one system call of the machine's own table, its program run as the kernel
    runs classic BPF (the few instructions it uses) over the call's number and the low words of its arguments."""
    from grader.sandbox import seccomp

    arch, numbers, _ = seccomp._ARCH[machine]
    data = {seccomp._ARCH_OFFSET: arch, seccomp._NR: numbers[call],
            **{seccomp._ARG0 + 8 * n: value & 0xFFFFFFFF for n, value in enumerate(args)}}
    code = seccomp.assemble(seccomp.program(machine, accelerator))
    at, accumulator = 0, 0
    while True:
        op, jt, jf, k = struct.unpack_from("HBBI", code, at * 8)
        at += 1
        if op == seccomp._RET_K:
            return k
        if op == seccomp._LD_W_ABS:
            accumulator = data.get(k, 0)
        elif op == seccomp._AND_K:
            accumulator &= k
        elif op in (seccomp._JEQ_K, seccomp._JGE_K):
            taken = accumulator == k if op == seccomp._JEQ_K else accumulator >= k
            at += jt if taken else jf


def test_the_system_call_filter_leaves_shared_mappings_to_a_cuda_driver_only() -> None:
    """Shared anonymous mappings are refused (ENOMEM) except where the judge found CUDA, whose driver maps
    some (the whole submission's memory cap then counts them: tests/hostile/test_caps_and_reach.py); a
    mapping that grows down (a stack's kind, which RLIMIT_DATA does not count) is refused everywhere; a private
    mapping is allowed everywhere."""
    from grader.sandbox import seccomp

    enomem = seccomp._errno(errno.ENOMEM)
    private, shared = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, mmap.MAP_SHARED | mmap.MAP_ANONYMOUS
    for machine in ("x86_64", "aarch64"):
        for accelerator in (None, "cuda"):
            def mapping(flags: int) -> int:
                return filtered(machine, accelerator, "mmap", 0, 4096, 3, flags, -1, 0)
            assert mapping(private) == seccomp.ALLOW
            assert mapping(private | seccomp._MAP_GROWSDOWN) == enomem
            assert mapping(shared) == (seccomp.ALLOW if accelerator == "cuda" else enomem)