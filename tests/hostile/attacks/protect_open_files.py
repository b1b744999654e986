# attack: hold as many open files as it can (up to @COUNT@ descriptors at once, kept open after the cell),
# after trying to lift the open-files cap to its hard limit and past it; print how many it held and what
# stopped it
import errno
import os
import resource

_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
for _limit in (1 << 20, _hard):
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (_limit, _limit))
        break
    except (ValueError, OSError):
        continue
print("NOFILE", *resource.getrlimit(resource.RLIMIT_NOFILE), flush=True)

with open("held.txt", "w") as _f:
    _f.write("held\n")
_held = []
try:
    for _ in range(@COUNT@):
        _held.append(os.open("held.txt", os.O_RDONLY))
    print("HELD", len(_held), flush=True)
except OSError as _exc:
    print("STOPPED", errno.errorcode.get(_exc.errno, _exc.errno), len(_held), flush=True)
