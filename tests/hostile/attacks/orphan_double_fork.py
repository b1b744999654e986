# attack: the daemon's double fork -- fork, setsid, fork again, exec `sleep 987655` in the grandchild;
# the middle process exits so the sleeper is orphaned outside the sandbox's process group
import os

_pid = os.fork()
if _pid == 0:
    try:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "987655"])
    finally:
        os._exit(0)
os.waitpid(_pid, 0)
