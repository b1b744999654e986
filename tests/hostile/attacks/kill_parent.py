# attack: kill the sandbox's parent process (the zygote, or the judge itself without one)
import os
import signal

os.kill(os.getppid(), signal.SIGKILL)
