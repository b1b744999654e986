# attack: a System V shared-memory segment under the key @KEY@: attach the one a classmate's grade left
# and print what it holds, else make it (8 MiB, anyone may read it) and leave the mark there
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
IPC_CREAT = 0o1000
segment = libc.shmget(@KEY@, 0, 0)
if segment >= 0:
    where = libc.shmat(segment, None, 0)
    print("FOUND", ctypes.string_at(where, 12).decode(errors="replace"))
else:
    segment = libc.shmget(@KEY@, 8 << 20, IPC_CREAT | 0o666)
    where = libc.shmat(segment, None, 0) if segment >= 0 else None
    if where not in (None, ctypes.c_void_p(-1).value):
        ctypes.memmove(where, b"@MARK@", 12)
        print("LEFT", segment)
    else:
        print("REFUSED", ctypes.get_errno())
