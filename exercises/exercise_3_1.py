"""Exercise 3.1: move SelfAttention_v2's nn.Linear weights into SelfAttention_v1's raw parameters.

The classic slip is the missing transpose, which only shows when d_in != d_out by crashing, and
hides entirely when d_in == d_out; so the template-style answer is run on a square shape too, and
the book-style pair is inspected parameter by parameter to name what went wrong.

The two classes are the book's, handed out with the exercise (GIVEN): "classes" checks they are intact and
earns nothing by itself (design §7: given code earns nothing); its points are the transfer's, in "agree" and
"parameters".
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from grader.checks import (
    Exercise, Msg, NotFound, Obj, Outcome, SandboxClient, StudentError, Verdict, build, close, comparison, failed,
    first_rows, found_in, function, instances, max_diff, passed, the_class, with_object,
)
from grader.solutions import chapter3
from ._attention import (
    GIVEN,
    MAX_WIDTH,
    Layout,
    Roles,
    book_state,
    degenerate,
    random_roles,
    reference_output,
    roles_by_name,
    roles_from_state,
    student_state,
)
from ._layout import find_layout, roles_read

SHAPES = [(3, 2), (4, 4), (5, 3)]  # (d_in, d_out); the square one is where a missing .T hides
TOKENS = (1, 6, 9)
ROLES = {"q": "query", "k": "key", "v": "value"}

EXERCISE = Exercise(
    id="3.1",
    title={"en": "Transfer weights from SelfAttention_v2 to SelfAttention_v1",
           "zh": "将 SelfAttention_v2 的权重转移到 SelfAttention_v1"},
    statement={
        "en": "Transfer the weights of a SelfAttention_v2 instance into a SelfAttention_v1 instance so "
              "that both produce the same outputs. Hint: nn.Linear stores its weight transposed.",
        "zh": "将 SelfAttention_v2 实例的权重转移到 SelfAttention_v1 实例中，使两者输出相同。"
              "提示：nn.Linear 以转置形式存储权重。",
    },
    reference=chapter3,
    order=1,
    messages={
        "not_found.pair": {
            "en": "no transfer_weights(sa_v1, sa_v2) function, and no SelfAttention_v1 and SelfAttention_v2 objects.",
            "zh": "没有 transfer_weights(sa_v1, sa_v2) 函数，也没有 SelfAttention_v1 和 SelfAttention_v2 对象。",
        },
        "not_found.class": {"en": "no class {name}.", "zh": "没有类 {name}。"},
        "agree.ok": {
            "en": "After the transfer, v1 gives what v2's weights give on {n} fresh inputs.",
            "zh": "转移之后，v1 在 {n} 组新的随机输入上的输出与 v2 的权重应得的结果相同。",
        },
        "agree.mismatch": {
            "en": "On a fresh input of shape {shape}, v1 does not give what v2's weights give (largest "
                  "difference {diff:.3g}). {diagnosis}",
            "zh": "在形状为 {shape} 的新输入上，v1 的输出与 v2 的权重应得的结果不同（最大差值 {diff:.3g}）。{diagnosis}",
        },
        "agree.unmapped": {
            "en": "The weights of {name} cannot be read back as W_query, W_key and W_value, neither by their "
                  "names nor by what each one does (or they are all constant), so the transfer cannot be checked.",
            "zh": "{name} 的权重无法读取为 W_query、W_key、W_value：按名称不行，按每个权重的作用也不行"
                  "（或全为常数），因此无法检查转移。",
        },
        "agree.raised": {
            "en": "v1 raised {error} on an input of shape {shape}. {diagnosis}",
            "zh": "v1 在形状为 {shape} 的输入上抛出了 {error}。{diagnosis}",
        },
        "parameters.ok": {
            "en": "v1's query, key and value matrices are nn.Parameters equal to v2's weights transposed.",
            "zh": "v1 的 query、key、value 矩阵都是 nn.Parameter，且等于 v2 权重的转置。",
        },
        "parameters.wrong": {"en": "{diagnosis}", "zh": "{diagnosis}"},
        "transfer.raised": {
            "en": "transfer_weights(sa_v1, sa_v2) raised a TypeError. {diagnosis}",
            "zh": "transfer_weights(sa_v1, sa_v2) 抛出了 TypeError。{diagnosis}",
        },
        "classes.ok": {
            "en": "Your SelfAttention_v1 and SelfAttention_v2 compute the reference attention for shapes {shapes}.",
            "zh": "你的 SelfAttention_v1 和 SelfAttention_v2 在形状 {shapes} 上都与参考实现一致。",
        },
        "classes.mismatch": {
            "en": "{cls} with the reference's weights differs from the reference attention (largest difference "
                  "{diff:.3g}). Check the scaling by sqrt(d_out) and the softmax dim.",
            "zh": "{cls} 载入参考权重后与参考注意力不同（最大差值 {diff:.3g}）。"
                  "请检查除以 sqrt(d_out) 的缩放和 softmax 的维度。",
        },
        "classes.unmapped": {
            "en": "{cls} keeps its weights under names the grader cannot map (expected W_query, W_key, W_value), "
                  "and no assignment of them to query, key and value computes the reference attention.",
            "zh": "{cls} 的权重名称无法识别（应为 W_query、W_key、W_value），把它们逐个对应到 query、key、value "
                  "也无法得到参考注意力。",
        },
        "diag.missing_transpose": {
            "en": "{param} holds {source} without .T: nn.Linear stores (d_out, d_in), "
                  "SelfAttention_v1 needs (d_in, d_out). Transpose it (book section 3.4.2).",
            "zh": "{param} 直接使用了 {source} 而没有 .T：nn.Linear 存储的是 (d_out, d_in)，"
                  "SelfAttention_v1 需要 (d_in, d_out)。请转置（见书 3.4.2 节）。",
        },
        "diag.not_moved": {
            "en": "{param} was not moved: it still holds v1's own random values.",
            "zh": "{param} 没有被转移：它仍然是 v1 自己的随机初始值。",
        },
        "diag.nothing_moved": {
            "en": "No weight was transferred: v1's matrices ({params}) still hold their own random values. Assign "
                  "each one v2's weight, transposed: sa_v1.{param} = torch.nn.Parameter({source}.T).",
            "zh": "没有转移任何权重：v1 的矩阵（{params}）仍然是它们自己的随机初始值。请把 v2 的权重转置后逐个赋给它们："
                  "sa_v1.{param} = torch.nn.Parameter({source}.T)。",
        },
        "diag.swapped": {
            "en": "{param} holds {source}.T: the query and key matrices are swapped.",
            "zh": "{param} 中是 {source}.T：query 和 key 矩阵互换了。",
        },
        "diag.wrong_role": {
            "en": "{param} holds {source}.T instead of {expected}.T.",
            "zh": "{param} 中是 {source}.T，而不是 {expected}.T。",
        },
        "diag.plain_tensor": {
            "en": "{param} was given a plain tensor; nn.Module only accepts an nn.Parameter there: "
                  "wrap it, torch.nn.Parameter(sa_v2.{param}.weight.T).",
            "zh": "{param} 被赋予了普通张量；nn.Module 在此只接受 nn.Parameter："
                  "请包装为 torch.nn.Parameter(sa_v2.{param}.weight.T)。",
        },
        "diag.missing": {
            "en": "v1 has no parameter {param}.",
            "zh": "v1 没有参数 {param}。",
        },
        "diag.unknown": {
            "en": "Compare each of v1's matrices with the matching v2 weight, transposed.",
            "zh": "请逐个比较 v1 的矩阵与 v2 中对应权重的转置。",
        },
    },
)


_CANNOT_ASSIGN = re.compile(r"cannot assign .* as parameter '(\w+)'")


def _plain_tensor(error: dict[str, Any] | None) -> Msg | None:
    """nn.Module refuses a plain tensor where a Parameter was with this TypeError; name the parameter."""
    match = _CANNOT_ASSIGN.search((error or {}).get("message", ""))
    return Msg("3.1.diag.plain_tensor", {"param": match.group(1)}) if match else None


@dataclass(frozen=True)
class Transfer:
    """v1 and v2 after the transfer, and the weights v2 holds as the judge knows them."""

    v1: Obj
    v2: Obj
    roles: Roles | None  # None: v2's weights could not be read back (unmappable, degenerate or too wide)
    origin: Obj  # what the submission holds: transfer_weights, or its own v1 (the page quotes its cell)


def self_attention(x: torch.Tensor, roles: list[Roles]) -> torch.Tensor:
    """What SelfAttention_v2 computes on x (tokens, d_in) with these weights (one head), computed here for
    any biases a layout gives (find_layout's model; the checks compare with solutions/ itself)."""
    r = roles[0]
    q, k, v = (F.linear(x, w, b) for w, b in ((r.q, r.q_b), (r.k, r.k_b), (r.v, r.v_b)))
    return torch.softmax(q @ k.T / k.shape[-1]**0.5, dim=-1) @ v


def reference(x: torch.Tensor, roles: Roles) -> torch.Tensor:
    """What solutions/' SelfAttention_v2 computes on x with these weights."""
    return reference_output(chapter3.SelfAttention_v2, (roles.q.shape[1], roles.q.shape[0], roles.q_b is not None),
                            book_state(roles), x)


def layout(sb: SandboxClient, module: Obj, rng: torch.Generator, d_in: int, d_out: int) -> Layout | None:
    """The roles of a module whose names say nothing, found by what its weights do (find_layout)."""
    return find_layout(sb, module, [module.info.get("parameters", [])], torch.randn(6, d_in, generator=rng),
                       self_attention, d_in=d_in, d_out=d_out, rng=rng)


def transferred_pairs(sb: SandboxClient, rng: torch.Generator) -> list[Transfer]:
    """Fresh pairs through transfer_weights, v2 holding the judge's weights; else the submission's pair.
    Made once per sandbox: "agree" runs v1 and "parameters" reads its matrices, neither changes them."""
    return sb.memo("3.1 pairs", lambda: _transfer(sb, rng))


def _transfer(sb: SandboxClient, rng: torch.Generator) -> list[Transfer]:
    fn = function(sb, "transfer_weights")
    if fn is not None:
        v1_cls, v2_cls = the_class(sb, "SelfAttention_v1"), the_class(sb, "SelfAttention_v2")
        pairs = []
        for d_in, d_out in SHAPES:
            v1, v2 = build(sb, v1_cls, chapter3, d_in, d_out), build(sb, v2_cls, chapter3, d_in, d_out)
            roles: Roles | None = random_roles(rng, d_in, d_out)
            params = v2.info.get("parameters", [])
            state = student_state(params, roles, d_in, d_out)  # type: ignore[arg-type]
            if state is None:
                found = layout(sb, v2, rng, d_in, d_out)
                state = student_state(params, roles, d_in, d_out, layout=found) if found else None  # type: ignore
            if state is None:
                roles = None
            else:
                sb.load_state(v2, state)
            try:
                sb.call(fn, v1, v2, label="transfer_weights(sa_v1, sa_v2)")
            except StudentError as exc:
                problem = _plain_tensor(exc.detail)
                if problem is None:
                    raise
                evidence = {"error": exc.detail, **found_in(fn)}
                raise Verdict(failed("transfer.raised", evidence, diagnosis=problem)) from None
            pairs.append(Transfer(v1, v2, roles, fn))
        return pairs
    v1s, v2s = instances(sb, ["SelfAttention_v1"]), instances(sb, ["SelfAttention_v2"])
    if not v1s or not v2s:
        raise NotFound("not_found.pair")
    v2 = v2s[-1]
    # The pair exists only as the submission's objects: v2's weights are read back from it.
    return [Transfer(v1s[-1], v2, own_roles(sb, v2, rng), v1s[-1])]


def own_roles(sb: SandboxClient, v2: Obj, rng: torch.Generator) -> Roles | None:
    """The weights the submission's own v2 holds, read by name, else by what they do; None when neither
    reads them (or they are wider than any input the judge draws)."""
    params, state = v2.info.get("parameters", []), sb.state(v2)
    roles = roles_from_state(params, state)
    if roles is None:
        roles = _roles_by_behaviour(sb, v2, params, state, rng)
    if roles is None or degenerate(roles) or max(roles.q.shape) > MAX_WIDTH or roles.o is not None:
        return None
    biases = [b is not None for b in (roles.q_b, roles.k_b, roles.v_b)]
    return roles if all(biases) or not any(biases) else None  # SelfAttention_v2 has all three or none


def _roles_by_behaviour(sb: SandboxClient, v2: Obj, params: list[dict[str, Any]], state: dict[str, torch.Tensor],
                        rng: torch.Generator) -> Roles | None:
    """v2's own weights in roles found by what they do: its widths read from its first matrix, (d_out, d_in)
    in an nn.Linear, (d_in, d_out) in a raw x @ W parameter."""
    first = next((p["name"] for p in params if p["name"] in state and state[p["name"]].dim() == 2), None)
    if first is None or max(state[first].shape) > MAX_WIDTH:
        return None
    rows, cols = state[first].shape
    d_out, d_in = (rows, cols) if first.endswith(".weight") else (cols, rows)
    x = torch.randn(6, d_in, generator=rng)
    found = find_layout(sb, v2, [params], x, self_attention, d_in=d_in, d_out=d_out, own=state)
    return roles_read(params, state, found, d_in, d_out) if found else None


def diagnose(sb: SandboxClient, pair: Transfer, rng: torch.Generator) -> Msg | None:
    """Name what is wrong with v1's matrices (None: all right), each compared with every weight v2 holds:
    the mapping is judged, whatever either class calls its matrices (v1_names)."""
    names = None if pair.roles is None else v1_names(sb, pair, rng)
    if names is None:
        return Msg("3.1.diag.unknown")
    assert pair.roles is not None
    s1, info = sb.state(pair.v1), sb.describe(pair.v1)
    registered = {p["name"] for p in info.get("parameters", [])}
    for name in names.values():
        if name not in s1:
            return _plain_tensor_from_cells(sb) or Msg("3.1.diag.missing", {"param": name})
        if name not in registered:
            return Msg("3.1.diag.plain_tensor", {"param": name})
    held = {role: _held(s1[name], pair.roles) for role, name in names.items()}
    if not any(held.values()):
        return _plain_tensor_from_cells(sb) or Msg("3.1.diag.nothing_moved", {
            "params": ", ".join(names.values()), "param": names["q"], "source": source(sb, pair, "q")})
    for role, name in names.items():
        found = held[role]
        if found == (role, True):
            continue
        if found == (role, False):
            return Msg("3.1.diag.missing_transpose", {"param": name, "source": source(sb, pair, role)})
        if found is not None and found[1]:
            key = "swapped" if {role, found[0]} == {"q", "k"} else "wrong_role"
            return Msg(f"3.1.diag.{key}", {"param": name, "source": source(sb, pair, found[0]),
                                          "expected": source(sb, pair, role)})
        return _plain_tensor_from_cells(sb) or Msg("3.1.diag.not_moved", {"param": name})
    return None


def v1_names(sb: SandboxClient, pair: Transfer, rng: torch.Generator) -> dict[str, str] | None:
    """{role: name} of v1's query, key and value matrices, in that order: read from their names (W_query,
    w_query, Wq ...), else found by what each does in a fresh instance of v1's class (once per child)."""
    info = pair.v1.info
    named = roles_by_name(t["name"] for t in info.get("parameters", []) + info.get("plain_tensors", [])
                          if len(t["shape"]) == 2)
    found = named or sb.memo("3.1 v1 roles", lambda: _v1_roles_by_behaviour(sb, pair, rng))
    return {role: found[role] for role in ROLES} if found else None


def _v1_roles_by_behaviour(sb: SandboxClient, pair: Transfer, rng: torch.Generator) -> dict[str, str] | None:
    assert pair.roles is not None
    d_out, d_in = pair.roles.q.shape
    module = build(sb, the_class(sb, pair.v1.cls), chapter3, d_in, d_out)
    found = layout(sb, module, rng, d_in, d_out)
    matrices = {p["name"] for p in module.info.get("parameters", []) if len(p["shape"]) == 2}
    return {role: name for name, role in found.items() if name in matrices} if found else None


def _held(t: torch.Tensor, roles: Roles) -> tuple[str, bool] | None:
    """(the role whose weight a v1 matrix holds, whether transposed as v1 needs it), or None: none of them."""
    weights = {role: getattr(roles, role) for role in ROLES}
    right = [role for role, w in weights.items() if close(t, w.T)]
    unturned = [role for role, w in weights.items() if t.shape == w.shape and close(t, w)]
    return (right[0], True) if right else (unturned[0], False) if unturned else None


def source(sb: SandboxClient, pair: Transfer, role: str) -> str:
    """Where v2 keeps a role's weight, as the student would write it (sa_v2.W_query.weight)."""
    assert pair.roles is not None
    weight = getattr(pair.roles, role)
    for name, value in sb.state(pair.v2).items():
        if value.dim() == 2 and (close(value, weight) or close(value, weight.T)):
            return f"sa_v2.{name}"
    return f"sa_v2.W_{ROLES[role]}.weight"


def _plain_tensor_from_cells(sb: SandboxClient) -> Msg | None:
    """A book-style transfer that assigned a plain tensor raised in its cell; the cell record says which."""
    return next(filter(None, (_plain_tensor(r.error) for r in sb.cell_records())), None)


@EXERCISE.check("agree", points=6, title={"en": "v1 and v2 agree on fresh inputs",
                                          "zh": "v1 与 v2 在新输入上一致"})
def agree(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    count = 0
    evidence: dict[str, Any] = {}
    for pair in transferred_pairs(sb, rng):
        if pair.roles is None:
            return with_object(failed("agree.unmapped", name=pair.v2.name), pair.origin)
        inputs = [torch.randn(tokens, pair.roles.q.shape[1], generator=rng) for tokens in TOKENS]
        outputs, raised = sb.forward_each(pair.v1, inputs, label="sa_v1(x)")  # in one round trip
        for x, got in zip(inputs, outputs):
            expected = reference(x, pair.roles)
            shown = comparison(expected, got)
            evidence = {**shown, "input_shape": list(x.shape), "v1": shown["got"],
                        "v1_rows": first_rows(got), "expected_rows": first_rows(expected)}
            if not close(got, expected):
                outcome = failed("agree.mismatch", {**evidence, "max_diff": max_diff(got, expected)},
                                 shape=list(x.shape), diff=max_diff(got, expected),
                                 diagnosis=diagnose(sb, pair, rng) or Msg("3.1.diag.unknown"))
                return with_object(outcome, pair.origin)
            count += 1
        if raised is not None:
            error = f"{raised.detail.get('type')}: {raised.detail.get('message')}"
            outcome = failed("agree.raised", {"error": raised.detail}, error=error,
                             shape=list(inputs[len(outputs)].shape),
                             diagnosis=diagnose(sb, pair, rng) or Msg("3.1.diag.unknown"))
            return with_object(outcome, pair.origin)
    return passed("agree.ok", evidence, n=count)  # evidence of the last input, for the page's picture


@EXERCISE.check("parameters", points=4, title={"en": "v1 holds v2's weights, transposed, as nn.Parameters",
                                               "zh": "v1 以 nn.Parameter 持有 v2 权重的转置"})
def parameters(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    for pair in transferred_pairs(sb, rng):
        problem = diagnose(sb, pair, rng)
        if problem is not None:
            return with_object(failed("parameters.wrong", diagnosis=problem), pair.origin)
    return passed("parameters.ok")


@EXERCISE.check("classes", points=0, title={"en": "Your classes compute the reference attention",
                                            "zh": "你的类与参考注意力一致"})
def classes_match(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    """The given classes, found as every other answer is (the_class: near names too), still compute what the
    book's do: worth nothing on its own, it says where a transfer went wrong because a class was changed."""
    for name in GIVEN:
        the_class(sb, name)  # NotFound, naming a near miss, before any is built
    for d_in, d_out in SHAPES:
        roles: Roles = random_roles(rng, d_in, d_out)
        x = torch.randn(6, d_in, generator=rng)
        expected = reference_output(chapter3.SelfAttention_v2, (d_in, d_out), book_state(roles), x)
        for name in GIVEN:
            cls = the_class(sb, name)
            module = build(sb, cls, chapter3, d_in, d_out)
            params = module.info.get("parameters", [])
            state = student_state(params, roles, d_in, d_out)
            if state is None:
                mapping = layout(sb, module, rng, d_in, d_out)
                state = student_state(params, roles, d_in, d_out, layout=mapping) if mapping else None
            if state is None:
                return with_object(failed("classes.unmapped", cls=name), cls)
            got = sb.forward(module, x, load_first=state)
            if not close(got, expected):
                outcome = failed("classes.mismatch", {**comparison(expected, got), "d_in": d_in, "d_out": d_out},
                                 cls=name, diff=max_diff(got, expected))
                return with_object(outcome, cls)
    return passed("classes.ok", shapes=", ".join(f"{a}→{b}" for a, b in SHAPES))
