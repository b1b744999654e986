"""An instructor's exercise in one file: a softmax that does not overflow.

Book section 3.3.1 warns that the naive softmax, exp(x) / sum(exp(x)), overflows for large inputs.
Students write `stable_softmax(x)`; the checks call it in the sandbox on inputs drawn here, and
compare what comes back with the reference below, computed here. Nothing the student's code prints
or claims is taken as evidence.

Grade with it (no fork of the grader needed):

    grade --exercises examples/exercises list
    grade --exercises examples/exercises softmax my_answer.py
"""
from __future__ import annotations

import sys
from typing import Any, Callable

import torch

from grader.checks import BadReturn, Exercise, NotFound, Obj, Outcome, SandboxClient, describe_value, failed, passed

NAME = "stable_softmax"
RTOL, ATOL = 1e-5, 1e-6  # float32 softmax written differently agrees to ~1e-7


# -- the reference: the judge computes expected values with it, on inputs it drew itself --------------
def stable_softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim; subtracting each row's maximum keeps exp() at or below 1."""
    shifted = x - x.max(dim=-1, keepdim=True).values
    e = shifted.exp()
    return e / e.sum(dim=-1, keepdim=True)


EXERCISE = Exercise(
    id="softmax",
    group="extra",  # `grade --exercises DIR extra FILE` grades every exercise of this set
    order=1000,  # after the package's own exercises in `grade list` and `all`
    title={"en": "A softmax that does not overflow", "zh": "不会溢出的 softmax"},
    statement={
        "en": "Write a function stable_softmax(x) that returns the softmax of a tensor over its last dim, "
              "equal to torch.softmax(x, dim=-1), for any number of leading dims. It must not overflow: "
              "inputs near 1000 must give finite weights (book section 3.3.1). Keep the input's dtype.",
        "zh": "编写函数 stable_softmax(x)，对张量的最后一维计算 softmax，结果与 torch.softmax(x, dim=-1) 相同，"
              "且适用于任意数量的前导维度。它不能溢出：输入接近 1000 时也必须得到有限的权重（见书 3.3.1 节）。"
              "保持输入的 dtype。",
    },
    reference=sys.modules[__name__],  # this file: the reference lives beside the checks
    messages={
        # Keys are this exercise's own: the grader stores them as "softmax.<key>".
        "not_found": {
            "en": "no function stable_softmax(x) (define it at the top level of a code cell).",
            "zh": "没有函数 stable_softmax(x)（请在代码单元格的顶层定义它）。",
        },
        "values.ok": {
            "en": "stable_softmax equals torch.softmax(x, dim=-1) on inputs of shapes {shapes}.",
            "zh": "stable_softmax 在形状为 {shapes} 的输入上与 torch.softmax(x, dim=-1) 相同。",
        },
        "values.shape": {
            "en": "stable_softmax returned shape {got} for an input of shape {expected}; softmax keeps the shape.",
            "zh": "输入形状为 {expected} 时 stable_softmax 返回了形状 {got}；softmax 不改变形状。",
        },
        "values.wrong_dim": {
            "en": "stable_softmax normalises over the first dim: each row (the last dim) must sum to 1, "
                  "so take the max and the sum with dim=-1, keepdim=True.",
            "zh": "stable_softmax 在第一维上归一化：每一行（最后一维）之和应为 1，"
                  "所以请用 dim=-1, keepdim=True 求最大值与和。",
        },
        "values.not_normalised": {
            "en": "stable_softmax returns exp(x) without dividing by the sum of each row.",
            "zh": "stable_softmax 返回了 exp(x)，没有除以每一行的和。",
        },
        "values.mismatch": {
            "en": "stable_softmax differs from torch.softmax(x, dim=-1) for an input of shape {shape} "
                  "(largest difference {diff:.3g}).",
            "zh": "输入形状为 {shape} 时，stable_softmax 与 torch.softmax(x, dim=-1) 不同（最大差值 {diff:.3g}）。",
        },
        "large.ok": {
            "en": "Inputs from -{big} to +{big} give finite weights that equal the reference.",
            "zh": "输入在 -{big} 到 +{big} 之间时，得到的权重是有限值且与参考实现一致。",
        },
        "large.naive": {
            "en": "exp() overflows: {count} of {total} weights are NaN for inputs near {big}. Subtract each "
                  "row's maximum before exp(): x - x.max(dim=-1, keepdim=True).values (book section 3.3.1).",
            "zh": "exp() 溢出了：输入接近 {big} 时，{total} 个权重中有 {count} 个是 NaN。请在 exp() 之前减去每一行的"
                  "最大值：x - x.max(dim=-1, keepdim=True).values（见书 3.3.1 节）。",
        },
        "large.global_max": {
            "en": "The maximum subtracted is the whole tensor's, not each row's: rows far below it underflow "
                  "to 0/0 ({count} of {total} weights are NaN). Use x.max(dim=-1, keepdim=True).values.",
            "zh": "减去的是整个张量的最大值而不是每一行的：远低于它的行下溢为 0/0（{total} 个权重中有 {count} 个是 NaN）。"
                  "请使用 x.max(dim=-1, keepdim=True).values。",
        },
        "large.not_finite": {
            "en": "{count} of {total} weights are NaN or infinite for inputs near {big}.",
            "zh": "输入接近 {big} 时，{total} 个权重中有 {count} 个是 NaN 或无穷大。",
        },
        "large.mismatch": {
            "en": "For inputs near {big} the weights are finite but differ from the reference "
                  "(largest difference {diff:.3g}).",
            "zh": "输入接近 {big} 时权重是有限值，但与参考实现不同（最大差值 {diff:.3g}）。",
        },
        "dtype.ok": {"en": "A float64 input gives a float64 result.", "zh": "float64 输入得到 float64 结果。"},
        "dtype.changed": {
            "en": "A float64 input gave a {got} result: keep the input's dtype (no .float() or a float32 constant).",
            "zh": "float64 输入得到了 {got} 结果：请保持输入的 dtype（不要调用 .float() 或使用 float32 常量）。",
        },
    },
)


# -- finding the answer and comparing -----------------------------------------------------------------
def answer(sb: SandboxClient) -> Obj:
    """The function the submission bound last under NAME (its own name or the name it was assigned to)."""
    found = [o for o in sb.inventory() if o.kind == "function" and (
        o.cls == NAME or any(isinstance(b, dict) and b.get("name") == NAME for b in o.bindings))]
    if not found:
        raise NotFound("not_found")
    return found[-1]


def run(sb: SandboxClient, fn: Obj, x: torch.Tensor) -> torch.Tensor:
    """Call the student's function in the sandbox; the tensor that comes back was rebuilt by the judge."""
    label = f"{NAME}(x of shape {tuple(x.shape)})"
    got = sb.call(fn, x, label=label)
    if not isinstance(got, torch.Tensor):
        raise BadReturn(label, describe_value(got))  # the page says: "returned <what>, not the expected output"
    return got


def close(got: torch.Tensor, expected: torch.Tensor, equal_nan: bool = False) -> bool:
    return got.shape == expected.shape and bool(
        torch.allclose(got.double(), expected.double(), rtol=RTOL, atol=ATOL, equal_nan=equal_nan))


def max_diff(got: torch.Tensor, expected: torch.Tensor) -> float:
    return float(torch.nan_to_num((got.double() - expected.double()).abs(), nan=float("inf")).max())


def evidence(fn: Obj, expected: torch.Tensor, got: torch.Tensor) -> dict[str, Any]:
    """What the page shows for a failed check: where the function was defined, and an expected-vs-got
    table of the row holding the largest difference."""
    shown: dict[str, Any] = {"expected_shape": list(expected.shape), "got_shape": list(got.shape)}
    last = fn.bindings[-1] if fn.bindings else {}
    if isinstance(last, dict) and type(last.get("cell")) is int and isinstance(last.get("name"), str):
        # bindings come from the child: kept only when well-formed, and only to point at the student's code
        shown["object"] = {"name": last["name"][:200], "cell": last["cell"]}
    if got.shape == expected.shape and expected.numel():
        e, g = expected.reshape(-1, expected.shape[-1]), got.reshape(-1, got.shape[-1])
        gap = torch.nan_to_num((e.double() - g.double()).abs(), nan=float("inf"))
        row = int(gap.max(dim=-1).values.argmax())
        shown["expected"] = [round(float(v), 6) for v in e[row, :8]]
        shown["got"] = [round(float(v), 6) for v in g[row, :8]]
        shown["at"] = [int(i) for i in torch.unravel_index(torch.tensor(row * e.shape[-1]), expected.shape)]
    return shown


# -- the checks, in the order the page shows them --------------------------------------------------------
NAMED_BUGS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "values.wrong_dim": lambda x: torch.softmax(x, dim=0),
    "values.not_normalised": lambda x: x.exp(),
}


@EXERCISE.check("values", points=3, title={"en": "Equals torch.softmax over the last dim",
                                           "zh": "与最后一维上的 torch.softmax 相同"})
def values(sb: SandboxClient, reference: Any, rng: torch.Generator) -> Outcome:
    fn = answer(sb)
    shapes = [(int(torch.randint(4, 9, (1,), generator=rng)),), (4, 7), (2, 3, 6)]  # fresh sizes each run
    for shape in shapes:
        x = torch.randn(*shape, generator=rng) * 3
        got = run(sb, fn, x)
        expected = reference.stable_softmax(x)
        if got.shape != expected.shape:
            return failed("values.shape", evidence(fn, expected, got), got=list(got.shape), expected=list(shape))
        if not close(got, expected):
            named = next((key for key, bug in NAMED_BUGS.items() if close(got, bug(x))), "values.mismatch")
            return failed(named, evidence(fn, expected, got), shape=list(shape), diff=max_diff(got, expected))
    return passed("values.ok", shapes=", ".join(str(list(s)) for s in shapes))


@EXERCISE.check("large", points=2, title={"en": "No overflow for large inputs", "zh": "大输入不溢出"})
def large(sb: SandboxClient, reference: Any, rng: torch.Generator) -> Outcome:
    fn = answer(sb)
    big = 1000
    # One row near +big (exp overflows), one near -big (exp underflows), one near 0; shuffled.
    offsets = torch.tensor([big, -big, 0.0])[torch.randperm(3, generator=rng)]
    x = torch.randn(3, 8, generator=rng) * 5 + offsets[:, None]
    got = run(sb, fn, x)
    expected = reference.stable_softmax(x)
    if got.shape != expected.shape:
        return failed("values.shape", evidence(fn, expected, got), got=list(got.shape), expected=list(x.shape))
    bad = int((~torch.isfinite(got)).sum())
    counts = {"count": bad, "total": got.numel(), "big": big}
    if close(got, x.exp() / x.exp().sum(dim=-1, keepdim=True), equal_nan=True) and bad:
        return failed("large.naive", evidence(fn, expected, got), **counts)
    if close(got, (x - x.max()).exp() / (x - x.max()).exp().sum(dim=-1, keepdim=True), equal_nan=True) and bad:
        return failed("large.global_max", evidence(fn, expected, got), **counts)
    if bad:
        return failed("large.not_finite", evidence(fn, expected, got), **counts)
    if not close(got, expected):
        return failed("large.mismatch", evidence(fn, expected, got), big=big, diff=max_diff(got, expected))
    return passed("large.ok", big=big)


@EXERCISE.check("dtype", points=1, title={"en": "Keeps the input's dtype", "zh": "保持输入的 dtype"})
def dtype(sb: SandboxClient, reference: Any, rng: torch.Generator) -> Outcome:
    fn = answer(sb)
    x = torch.randn(2, 5, generator=rng, dtype=torch.float64)
    got = run(sb, fn, x)
    if got.dtype != torch.float64:
        shown = str(got.dtype).removeprefix("torch.")
        return failed("dtype.changed", {"expected_dtype": "float64", "got_dtype": shown}, got=shown)
    expected = reference.stable_softmax(x)
    if not close(got, expected):
        return failed("values.mismatch", evidence(fn, expected, got), shape=list(x.shape), diff=max_diff(got, expected))
    return passed("dtype.ok")
