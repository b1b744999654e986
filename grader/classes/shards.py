"""Which part of the class this machine grades, when a course runs `grade batch` on several machines.

`--shard K/N` says it outright (a GitHub Actions matrix: `--shard ${{ matrix.shard }}/N`); `--shard auto`
reads it from the engine that started the job, so one script serves every task of an array:

- a Slurm job array: K is the task's place in the array (SLURM_ARRAY_TASK_ID counted from
  SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP), N is SLURM_ARRAY_TASK_COUNT, so
  `--array=1-4`, `--array=0-3` and `--array=10-16:2` each split the class in four;
- a Kubernetes Indexed Job: K is JOB_COMPLETION_INDEX + 1; Kubernetes tells a pod its index but not the
  job's completions, so N comes from `--shards N` or the GRADER_SHARDS variable the manifest sets.

The students of a part are those whose name hashes to it (grader.classes.roster.in_shard), the same split on every
machine, so the N parts cover the class once whatever order the machines see it in.
"""
from __future__ import annotations

from typing import Mapping

from grader.classes.roster import parse_shard
from grader.messages.errors import GraderError

AUTO = "auto"
SHARDS_VARIABLE = "GRADER_SHARDS"


class ShardError(GraderError):
    """No part of the class can be told from the option and the environment."""


def choose(spec: str, shards: int | None, environ: Mapping[str, str]) -> tuple[int, int]:
    """(K, N) from `--shard` (K/N or auto) and `--shards`; a RosterError or ShardError says what is wrong."""
    if spec != AUTO:
        return _agreed(*parse_shard(spec), shards, "--shard")
    if "SLURM_ARRAY_TASK_ID" in environ:
        return _slurm(environ, shards)
    if "JOB_COMPLETION_INDEX" in environ:
        return _indexed_job(environ, shards)
    raise ShardError("shard.no_engine")


def _slurm(environ: Mapping[str, str], shards: int | None) -> tuple[int, int]:
    task, low, step, count = (_number(environ, name, default) for name, default in (
        ("SLURM_ARRAY_TASK_ID", None), ("SLURM_ARRAY_TASK_MIN", "0"), ("SLURM_ARRAY_TASK_STEP", "1"),
        ("SLURM_ARRAY_TASK_COUNT", None)))
    offset = task - low
    if step < 1 or offset < 0 or offset % step or offset // step >= count:
        raise ShardError("shard.slurm_gaps", task=str(task), low=str(low), step=str(step), count=str(count))
    return _agreed(offset // step + 1, count, shards, "Slurm")


def _indexed_job(environ: Mapping[str, str], shards: int | None) -> tuple[int, int]:
    index = _number(environ, "JOB_COMPLETION_INDEX", None)
    told = _number(environ, SHARDS_VARIABLE, None) if SHARDS_VARIABLE in environ else None
    if shards is None and told is None:
        raise ShardError("shard.indexed_job_count", variable=SHARDS_VARIABLE)
    if shards is not None and told is not None and shards != told:
        raise ShardError("shard.disagree", told=f"{SHARDS_VARIABLE}={told}", shards=str(shards))
    n = shards if shards is not None else told
    assert n is not None
    if index >= n:
        raise ShardError("shard.index_outside", index=str(index), count=str(n))
    return index + 1, n


def _agreed(k: int, n: int, shards: int | None, engine: str) -> tuple[int, int]:
    if shards is not None and shards != n:
        raise ShardError("shard.disagree", told=f"{engine} {k}/{n}", shards=str(shards))
    return k, n


def _number(environ: Mapping[str, str], name: str, default: str | None) -> int:
    value = environ.get(name, default)
    try:
        number = int(value if value is not None else "")
    except ValueError:
        raise ShardError("shard.bad_variable", name=name, value=str(value)) from None
    if number < 0 or (name in ("SLURM_ARRAY_TASK_COUNT", SHARDS_VARIABLE) and number < 1):
        raise ShardError("shard.bad_variable", name=name, value=str(value))
    return number
