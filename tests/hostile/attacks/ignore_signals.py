# attack: ignore SIGTERM, SIGINT, SIGHUP and the SIGALRM that interrupts a cell at its share of the time,
# then loop forever, hoping a polite kill never lands
import signal

for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
    signal.signal(_sig, signal.SIG_IGN)
while True:
    pass
