"""Which accelerator this machine has, as the judge's own torch finds it, never as a child says.

Two things follow from the answer, and both must come from the same place: the device exercise compares
on it, and a child's Landlock rules grant what that device's driver needs (grader.sandbox.confine). The
zygote never touches CUDA (forking after CUDA starts breaks the children), so it is asked here, in the judge.
"""
from __future__ import annotations

import os
from functools import lru_cache

import torch

# The device the comparison runs on, named by the operator (tests, and users without a GPU who want to see
# the comparison run): `cpu` runs it anywhere, and grants nothing.
DEVICE_OVERRIDE = "GRADER_ACCELERATOR"


def judge_accelerator() -> str | None:
    """The device the comparison runs on: the one GRADER_ACCELERATOR names, else this judge's own CUDA
    (NVIDIA, or AMD's through a HIP build) or MPS device, else None."""
    return os.environ.get(DEVICE_OVERRIDE) or hardware_accelerator()


@lru_cache(maxsize=1)
def hardware_accelerator() -> str | None:
    """"cuda" or "mps" where this machine has one (asked once per process: the answer does not change)."""
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    return "mps" if mps is not None and mps.is_available() else None


def driver_kind(device: str | None) -> str | None:
    """The kind of device whose driver a child's rules must let through: `cuda` for any CUDA device
    (`cuda`, `cuda:1`; a HIP build's too), None for the CPU, MPS (no Landlock on macOS) or nothing."""
    if not device:
        return None
    try:
        kind = torch.device(device).type
    except (RuntimeError, ValueError):
        return None
    return kind if kind == "cuda" else None
