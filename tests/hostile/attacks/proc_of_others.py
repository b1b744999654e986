# attack: read other processes' /proc entries: the command line, environment, open files and children
# of @PIDS@ (the zygote that forks every sandbox, and a process of the test's that carries @MARK@ in
# its command line and environment), and any process the /proc listing shows
import os

_pids = {int(p) for p in "@PIDS@".split(",")}
try:
    _pids |= {int(p) for p in os.listdir("/proc") if p.isdigit()}
except OSError:
    pass
_mine = {os.getpid()}
for _pid in sorted(_pids - _mine):
    for _entry in ("cmdline", "environ", "fd", f"task/{_pid}/children"):
        _path = f"/proc/{_pid}/{_entry}"
        try:
            _seen = os.listdir(_path) if _entry == "fd" else open(_path, "rb").read().decode(errors="replace")
        except OSError:
            continue
        print("LEAK", _path, str(_seen).replace("\x00", " ")[:300])
