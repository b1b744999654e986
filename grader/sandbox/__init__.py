"""The child side of the trust boundary: the zygote, the bootstrap and the probe server.

Student code runs only in processes started from here; the judge talks to them over grader.wire.
"""
