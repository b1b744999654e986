# attack: fill the disk through mappings: 16 files made at once at 63 MiB each, holes with no block yet, then
# every page of each written through a shared mapping, so the files grow with no new entry and no write();
# print the total after each file
import mmap
import os

_total = 0
_files = []
for _n in range(16):
    _fd = os.open(f"mapped-{_n}.bin", os.O_RDWR | os.O_CREAT, 0o600)
    os.ftruncate(_fd, 63 << 20)
    _files.append(_fd)
for _fd in _files:
    with mmap.mmap(_fd, 63 << 20, mmap.MAP_SHARED) as _map:
        for _at in range(0, 63 << 20, mmap.PAGESIZE):
            _map[_at] = 1
        _map.flush()
    _total += 63
    print("FILLED", _total, "MiB", flush=True)
