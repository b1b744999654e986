# attack: spin in a process of its own for ever, ignoring SIGXCPU (the CPU cap's warning) after trying to
# lift the cap; print how the spinner ended and how many CPU seconds it got
import os
import resource
import signal

_pid = os.fork()
if _pid == 0:
    try:
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        except (ValueError, OSError):
            pass
        while True:
            pass
    finally:
        os._exit(0)
_, _status = os.waitpid(_pid, 0)
_used = resource.getrusage(resource.RUSAGE_CHILDREN)
print("SPINNER-ENDED", os.WTERMSIG(_status) if os.WIFSIGNALED(_status) else -1,
      round(_used.ru_utime + _used.ru_stime, 2), flush=True)
