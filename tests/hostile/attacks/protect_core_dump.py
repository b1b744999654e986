# attack: dump core: lift the core-size cap to its hard limit, start a small program (`sleep 987654`) and
# abort it (SIGABRT, whose default action dumps core); print the cap, whether the kernel dumped a core and
# which core files appeared in the working folder
import os
import resource
import signal

_soft, _hard = resource.getrlimit(resource.RLIMIT_CORE)
try:
    resource.setrlimit(resource.RLIMIT_CORE, (_hard, _hard))
except (ValueError, OSError):
    pass
print("CORE-LIMIT", *resource.getrlimit(resource.RLIMIT_CORE), flush=True)

_read, _write = os.pipe()  # both close on exec: the read ends when `sleep` has replaced the fork
_pid = os.fork()
if _pid == 0:
    try:
        os.close(_read)
        os.execvp("sleep", ["sleep", "987654"])
    finally:
        os._exit(127)
os.close(_write)
os.read(_read, 1)
os.close(_read)
os.kill(_pid, signal.SIGABRT)
_, _status = os.waitpid(_pid, 0)
print("ABORTED", os.WTERMSIG(_status) if os.WIFSIGNALED(_status) else -1,
      "CORE" if os.WCOREDUMP(_status) else "NO-CORE", flush=True)
print("FILES", sorted(_name for _name in os.listdir(".") if _name.startswith("core")), flush=True)
