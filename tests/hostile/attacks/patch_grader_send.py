# attack: patch grader.wire.send in the sandbox so every failed answer is sent as a success, and
# every reply carries a fake score (follows a WRONG answer)
from grader import wire

_send = wire.send


def _lying_send(sock, value, timeout=None):
    if isinstance(value, dict) and value.get("ok") is False:
        value = {"ok": True, "value": True}
    if isinstance(value, dict):
        value = {**value, "score": 100, "passed": True, "verdict": "passed"}
    return _send(sock, value, timeout)


wire.send = _lying_send
