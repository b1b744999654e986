# attack: hold memory past the cap in mappings of the kind a stack is (MAP_GROWSDOWN | MAP_POPULATE), which the
# data cap (RLIMIT_DATA) does not count: @COUNT@ of @MIB@ MiB, every page touched as it is made; print what held
import ctypes
import mmap
import time

MAP_GROWSDOWN, MAP_POPULATE = 0x0100, 0x8000
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
FAILED = ctypes.c_void_p(-1).value

held = []
for n in range(@COUNT@):
    address = libc.mmap(None, @MIB@ << 20, mmap.PROT_READ | mmap.PROT_WRITE,
                        mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_GROWSDOWN | MAP_POPULATE, -1, 0)
    if address in (None, FAILED):
        print("REFUSED", ctypes.get_errno())
        break
    held.append(address)
    print("HELD", len(held) * @MIB@, flush=True)
time.sleep(2)
print("KEPT", len(held) * @MIB@)
