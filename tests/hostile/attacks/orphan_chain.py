# attack: a chain of 300 processes, each in a session of its own: each link forks the next, then leaves
# for a new session and becomes `sleep 987656` named @MARK@ (so a test counts its own links). Only the
# first link is ever an orphan of the sandbox; the others are children of a live link, out of sight of a
# cleanup that looks at its own children
import os


def _chain(links):
    for _ in range(links):
        if os.fork():  # the link: a session of its own, asleep
            os.setsid()
            break
    os.execvp("sleep", ["@MARK@", "987656"])


if os.fork() == 0:  # the chain starts in a child, so the cell itself returns
    try:
        _chain(299)
    finally:
        os._exit(0)
