# attack: os._exit(3) in MultiHeadAttention.forward -- every forward pass ends the sandbox (follows the answers)
import os


def _crash(self, x):
    os._exit(3)


MultiHeadAttention.forward = _crash
del _crash
