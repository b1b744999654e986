# attack: grow one file past the 64 MiB file-size cap (@MIB@ MiB written 1 MiB at a time, and another file
# stretched to that size with truncate), after trying to lift the cap; print how far each got and what
# stopped it
import errno
import os
import resource

try:
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    print("RAISED", flush=True)
except (ValueError, OSError):
    pass

_block = b"\1" * (1 << 20)
_written = 0
try:
    with open("big.bin", "wb", buffering=0) as _f:
        for _ in range(@MIB@):
            _written += _f.write(_block)
    print("WROTE", _written, flush=True)
except OSError as _exc:
    print("STOPPED", errno.errorcode.get(_exc.errno, _exc.errno), os.path.getsize("big.bin"), flush=True)

try:
    with open("sparse.bin", "wb") as _f:
        os.ftruncate(_f.fileno(), @MIB@ << 20)
    print("STRETCHED", os.path.getsize("sparse.bin"), flush=True)
except OSError as _exc:
    print("NOT-STRETCHED", errno.errorcode.get(_exc.errno, _exc.errno), flush=True)
