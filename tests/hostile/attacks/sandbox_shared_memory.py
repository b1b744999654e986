# attack: hold memory the data cap does not count: a shared anonymous mapping (mmap.mmap(-1, n)), a
# memfd mapped shared, and /dev/zero mapped shared, each of @MIB@ MiB (past the cap), every page touched;
# print what held
import mmap
import os

SIZE = @MIB@ << 20


def touch(m):
    for at in range(0, SIZE, mmap.PAGESIZE):
        m[at] = 1
    m.close()


def memfd():
    fd = os.memfd_create("weights")
    os.ftruncate(fd, SIZE)
    return mmap.mmap(fd, SIZE)


def dev_zero():
    with open("/dev/zero", "r+b") as f:
        return mmap.mmap(f.fileno(), SIZE)


for kind, make in (("anonymous", lambda: mmap.mmap(-1, SIZE)), ("memfd", memfd), ("dev-zero", dev_zero)):
    try:
        touch(make())
        print("HELD", kind, SIZE >> 20)
    except (OSError, ValueError, MemoryError) as exc:
        print("REFUSED", kind, type(exc).__name__)
