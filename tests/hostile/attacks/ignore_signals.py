# attack: ignore SIGTERM, SIGINT and SIGHUP, then loop forever, hoping a polite kill never lands
import signal

for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_sig, signal.SIG_IGN)
while True:
    pass
