"""The judge's side of the trust boundary: what grades a submission and talks to its sandbox.

It holds the expected values and the checks, so nothing here is ever imported by the child side
(grader.sandbox), which sees only grader.wire. Importing the package itself imports nothing: the
launcher must start its zygote before the judge's own `import torch`.
"""
