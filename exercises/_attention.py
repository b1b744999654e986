"""Shared by the chapter-3 exercises: finding attention answers and mapping the judge's weights into them.

The judge draws weights for the roles query/key/value/out, writes them into the student's module in
whatever layout it uses (book names, raw (d_in, d_out) parameters, a fused qkv), writes the same
roles into the reference from solutions/, and compares outputs. Only shapes and names come from the
child; the values compared are computed here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import Any, Callable, Iterable

import torch
import torch.nn.functional as F

from grader.checks import close

from ._recent import Recent

MAX_WIDTH = 4096  # the widest input the judge draws for a width it reads from a submission's weights

_ROLE_PATTERNS = {
    "qkv": re.compile(r"qkv|c_attn|in_proj"),
    "q": re.compile(r"quer|(^|[._])(w_?q|q_?proj|q|wq)([._]|$)"),
    "k": re.compile(r"key|(^|[._])(w_?k|k_?proj|k|wk)([._]|$)"),
    "v": re.compile(r"val|(^|[._])(w_?v|v_?proj|v|wv)([._]|$)"),
    "o": re.compile(r"out|proj|(^|[._])(w_?o|o|wo)([._]|$)"),
}
_MASK_NAME = re.compile(r"mask|tril")
# the judge's reference outputs and modelled attention on the draw its last students shared
RECENT = Recent()


@dataclass(frozen=True)
class Roles:
    """Weights in nn.Linear layout: q, k, v are (d_out, d_in); o is (d_out, d_out)."""

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    q_b: torch.Tensor | None = None
    k_b: torch.Tensor | None = None
    v_b: torch.Tensor | None = None
    o: torch.Tensor | None = None
    o_b: torch.Tensor | None = None


def random_roles(rng: torch.Generator, d_in: int, d_out: int, *, bias: bool = False,
                 out_proj: bool = False) -> Roles:
    def w(*shape: int) -> torch.Tensor:  # uniform, variance 1/fan-in: a third cheaper to draw than normal
        bound = (3 / shape[-1]) ** 0.5
        return torch.empty(*shape).uniform_(-bound, bound, generator=rng)

    return Roles(
        q=w(d_out, d_in), k=w(d_out, d_in), v=w(d_out, d_in),
        q_b=w(d_out) if bias else None, k_b=w(d_out) if bias else None, v_b=w(d_out) if bias else None,
        o=w(d_out, d_out) if out_proj else None, o_b=w(d_out) if out_proj else None,
    )


def book_state(roles: Roles, prefix: str = "") -> dict[str, torch.Tensor]:
    """The roles under the book's parameter names (the layout of the classes in solutions/)."""
    named = {
        "W_query.weight": roles.q, "W_key.weight": roles.k, "W_value.weight": roles.v,
        "W_query.bias": roles.q_b, "W_key.bias": roles.k_b, "W_value.bias": roles.v_b,
        "out_proj.weight": roles.o, "out_proj.bias": roles.o_b,
    }
    return {prefix + n: t for n, t in named.items() if t is not None}


Layout = dict[str, str]  # parameter name -> role (q, k, v, o, qkv); a 1-D parameter holds that role's bias
Reference = Callable[[torch.Tensor, list[Roles]], torch.Tensor]  # what the roles (one per head) compute on x


def student_state(params: list[dict[str, Any]], roles: Roles, d_in: int, d_out: int,
                  prefix: str = "", layout: Layout | None = None) -> dict[str, torch.Tensor] | None:
    """The roles written in the student's layout (read from the names, or given by `layout`), or None
    when the layout cannot be mapped safely."""
    state: dict[str, torch.Tensor] = {}
    covered = set()
    for p in params:
        name, shape = p["name"], tuple(p["shape"])
        if not name.startswith(prefix) or is_mask(name):
            continue
        role = layout.get(name) if layout is not None else _role_of(name[len(prefix):].lower())
        value = _value_for(role, name.lower(), shape, roles, d_in, d_out)
        if value is None:
            return None
        state[name] = value
        covered.add(role)
    if not ({"q", "k", "v"} <= covered or "qkv" in covered) or (roles.o is not None) != ("o" in covered):
        return None
    return state


def fresh_state(params: list[dict[str, Any]], rng: torch.Generator, d_in: int, d_out: int, *, out_proj: bool,
                layout: Layout | None = None, identity_out: bool = False
                ) -> tuple[Roles, dict[str, torch.Tensor]] | None:
    """Fresh roles and the student's state holding them (student_state), with or without query/key/value
    biases and, where the book has an out_proj, also without one: a bias or a missing projection is the
    configuration's slip, charged by 3.3's count, not where the attention is judged. With `identity_out`, the
    out projection holds the identity: the mask exercise judges the attention before it, and an out_proj
    that the forward never applies is 3.3's to charge. None when no variant maps."""
    drawn = random_roles(rng, d_in, d_out, bias=True, out_proj=out_proj)
    if identity_out and drawn.o is not None:
        drawn = with_out_proj(replace(drawn, o=None, o_b=None))
    for bias in (False, True):
        for proj in ((True, False) if out_proj else (False,)):
            roles = replace(drawn, q_b=drawn.q_b if bias else None, k_b=drawn.k_b if bias else None,
                            v_b=drawn.v_b if bias else None, o=drawn.o if proj else None,
                            o_b=drawn.o_b if proj else None)
            state = student_state(params, roles, d_in, d_out, layout=layout)
            if state is not None:
                return roles, state
    return None


def with_out_proj(roles: Roles) -> Roles:
    """The roles with an identity out projection where they have none: what the reference, which always
    projects, computes for a module without out_proj."""
    if roles.o is not None:
        return roles
    d_out = roles.q.shape[0]
    return replace(roles, o=torch.eye(d_out), o_b=torch.zeros(d_out))


def is_mask(name: str) -> bool:
    """A tensor named as the causal mask (mask, tril): never a weight, even when it is an nn.Parameter (the
    mask_parameter slip that 3.3's count charges), so it is left out of the roles."""
    return bool(_MASK_NAME.search(name.lower()))


def roles_by_name(names: Iterable[str]) -> dict[str, str] | None:
    """{role: name} when the names say which one is the query, the key and the value matrix, one each."""
    found: dict[str, str] = {}
    for name in names:
        role = _role_of(name.lower())
        if role in ("q", "k", "v"):
            if role in found:
                return None
            found[role] = name
    return found if len(found) == 3 else None


def roles_from_state(params: list[dict[str, Any]], state: dict[str, torch.Tensor]) -> Roles | None:
    """A module's weights read back into the judge's layout; None when unmappable or degenerate.

    Degenerate (an all-constant matrix) is refused because no real initialisation gives one, and
    zero weights would make any all-zero output look right.
    """
    found: dict[str, torch.Tensor] = {}
    for p in params:
        name = p["name"]
        role, value = _role_of(name.lower()), state.get(name)
        if role not in ("q", "k", "v", "o") or value is None or value.dim() not in (1, 2):
            return None
        if value.dim() == 1:
            found[f"{role}_b"] = value
        else:
            found[role] = value if name.endswith(".weight") else value.T.contiguous()
    if any(found.get(r) is None for r in ("q", "k", "v")):
        return None
    roles = Roles(**found)
    return None if degenerate(roles) or not consistent(roles) else roles


def consistent(roles: Roles) -> bool:
    """Weights that fit together, as the judge's models need them: q, k and v of one (d_out, d_in) shape,
    biases of (d_out,), an out projection of (d_out, d_out)."""
    d_out = roles.q.shape[0]
    return (roles.k.shape == roles.v.shape == roles.q.shape
            and all(b is None or tuple(b.shape) == (d_out,) for b in (roles.q_b, roles.k_b, roles.v_b, roles.o_b))
            and (roles.o is None or tuple(roles.o.shape) == (d_out, d_out)))


def degenerate(roles: Roles) -> bool:
    """A query, key or value matrix that is all one number: no real initialisation gives one, and with zero
    weights any all-zero output would look right."""
    return any(w.numel() < 2 or float(w.double().std()) == 0.0 for w in (roles.q, roles.k, roles.v))


def _role_of(name: str) -> str | None:
    for role, pattern in _ROLE_PATTERNS.items():
        if pattern.search(name):
            return role
    return None


def _value_for(role: str | None, name: str, shape: tuple[int, ...], roles: Roles, d_in: int,
               d_out: int) -> torch.Tensor | None:
    is_bias = name.endswith("bias") or len(shape) == 1
    linear = name.endswith(".weight")
    if role == "qkv":
        if is_bias:
            parts = [roles.q_b, roles.k_b, roles.v_b]
            return torch.cat(parts) if all(p is not None for p in parts) and shape == (3 * d_out,) else None  # type: ignore[arg-type]
        fused = torch.cat([roles.q, roles.k, roles.v])
        return _oriented(fused, shape, linear)
    if role in ("q", "k", "v", "o"):
        weight = getattr(roles, role)
        if is_bias:
            bias = getattr(roles, f"{role}_b")
            return bias if bias is not None and tuple(bias.shape) == shape else None
        return _oriented(weight, shape, linear) if weight is not None else None
    return None


def _oriented(weight: torch.Tensor, shape: tuple[int, ...], linear: bool) -> torch.Tensor | None:
    """nn.Linear keeps (out, in); a raw parameter used as x @ W keeps (in, out)."""
    same, flipped = tuple(weight.shape) == shape, tuple(weight.T.shape) == shape
    if same and (linear or not flipped):
        return weight
    if flipped:
        return weight.T.contiguous()
    return None


def per_head(params: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Group a wrapper's parameters by head prefix ("heads.0." ...), in head order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for p in params:
        match = re.match(r"^(.*?\.\d+\.)", p["name"])
        if match:
            groups.setdefault(match.group(1), []).append(p)
    return dict(sorted(groups.items(), key=lambda kv: int(kv[0].rstrip(".").rsplit(".", 1)[-1])))


def map_heads(params: list[dict[str, Any]], rng: torch.Generator, d_in: int,
              d_out: int, layout: Layout | None = None) -> tuple[list[Roles], dict[str, torch.Tensor]] | None:
    """Fresh weights for every head of a wrapper ("heads.0." ...): (roles per head, student's state), or None."""
    heads = per_head(params)
    roles: list[Roles] = []
    student: dict[str, torch.Tensor] = {}
    for prefix, head_params in heads.items():
        head_roles = random_roles(rng, d_in, d_out)
        mapped = student_state(head_params, head_roles, d_in, d_out, prefix=prefix, layout=layout)
        if mapped is None:
            return None
        roles.append(head_roles)
        student.update(mapped)
    return (roles, student) if roles else None


def heads_state(roles: list[Roles]) -> dict[str, torch.Tensor]:
    """Per-head roles under the book wrapper's names."""
    state: dict[str, torch.Tensor] = {}
    for i, head_roles in enumerate(roles):
        state.update(book_state(head_roles, prefix=f"heads.{i}."))
    return state


# -- models of the correct computation and of the usual bugs -------------------------------------------
# The bugs `attend` models: all of them inside the attention computation, which the mask exercise judges.
BUGS = (
    "diagonal_zero", "inverted_mask", "mask_not_applied", "softmax_wrong_dim", "no_scaling",
    "scale_by_d_out", "no_split_transpose", "no_merge_transpose", "mask_after_softmax_no_renorm",
    "query_key_swapped", "softmax_heads_dim", "mask_shifted", "scale_by_tokens",
)


def attend(x: torch.Tensor, roles: Roles, num_heads: int, bug: str | None = None) -> torch.Tensor:
    """Causal multi-head attention as the book computes it, optionally with one named bug (BUGS)."""
    b, tokens, _ = x.shape
    if bug == "query_key_swapped":
        roles = replace(roles, q=roles.k, k=roles.q, q_b=roles.k_b, k_b=roles.q_b)
    q, k, v = (F.linear(x, w, bias) for w, bias in ((roles.q, roles.q_b), (roles.k, roles.k_b), (roles.v, roles.v_b)))
    d_out = q.shape[-1]
    head_dim = d_out // num_heads

    def split(t: torch.Tensor) -> torch.Tensor:
        t = t.view(b, tokens, num_heads, head_dim)
        return t if bug == "no_split_transpose" else t.transpose(1, 2)

    q, k, v = split(q), split(k), split(v)
    if bug in FUSED:  # the same numbers from torch's causal kernel, which skips the masked half: ~3x faster on 1024
        scale = {"no_scaling": 1.0, "scale_by_d_out": d_out**-0.5, "scale_by_tokens": tokens**-0.5}.get(bug or "")
        context = F.scaled_dot_product_attention(q, k, v, is_causal=bug != "mask_not_applied", scale=scale)
    else:
        context = _weights(q, k, bug, head_dim) @ v
    if bug != "no_merge_transpose":
        context = context.transpose(1, 2)
    context = context.contiguous().view(b, tokens, d_out)
    return F.linear(context, roles.o, roles.o_b) if roles.o is not None else context


# The bugs (None: the book's attention) whose weights are a causal or a full softmax at some scale: what
# torch's fused attention computes, without the (heads, tokens, tokens) scores in memory
FUSED = (None, "query_key_swapped", "no_merge_transpose", "mask_not_applied", "no_scaling", "scale_by_d_out",
         "scale_by_tokens")


def _weights(q: torch.Tensor, k: torch.Tensor, bug: str | None, head_dim: int) -> torch.Tensor:
    """The attention weights the other bugs compute, step by step as the book does."""
    scores = q @ k.transpose(-2, -1)
    n = scores.shape[-1]
    ones = torch.ones(n, n, dtype=torch.bool)
    hidden = torch.tril(ones, diagonal=-1) if bug == "inverted_mask" else torch.triu(
        ones, diagonal={"diagonal_zero": 0, "mask_shifted": 2}.get(bug or "", 1))
    scale = head_dim**0.5
    if bug == "mask_after_softmax_no_renorm":
        return torch.softmax(scores / scale, dim=-1) * ~hidden
    scores = scores.masked_fill(hidden, -torch.inf)
    # scores are (b, heads, queries, keys): dim=1 is the heads, the slip of a softmax copied from 3-D code
    dim = {"softmax_wrong_dim": -2, "softmax_heads_dim": 1}.get(bug or "", -1)
    return torch.softmax(scores / scale, dim=dim)


def bug_models(model: Callable[[str | None, torch.Tensor, list[Roles]], torch.Tensor]) -> list[Reference]:
    """The model (model(bug, x, roles)) with each of attend's bugs in turn, for find_layout: a module with one
    of them still has its weights found by what they do, so the bug is charged where the attention is judged."""
    return [partial(model, bug) for bug in BUGS]


def bug_of(got: torch.Tensor, model: Callable[[str], torch.Tensor]) -> str | None:
    """The first of attend's bugs whose model (model(bug)) reproduces got, if one does. An output with no
    number in it shows nothing (any model that turns all NaN would reproduce it), so it has none."""
    if not bool(torch.isfinite(got).any()):
        return None
    return next((bug for bug in BUGS if reproduces(got, partial(model, bug))), None)


def reproduces(got: torch.Tensor, model: Callable[[], torch.Tensor]) -> bool:
    """Whether a model's output equals got (NaN where got has NaN); a model that cannot run at this
    length (a missing split transpose) is not what ran."""
    try:
        return close(got, model(), equal_nan=True)
    except RuntimeError:
        return False


def reference_output(cls: type, args: tuple[Any, ...], state: dict[str, torch.Tensor],
                     x: torch.Tensor) -> torch.Tensor:
    """What the solutions/ class computes with the same weights (dropout off, no grad); computed once for the
    class's students graded on the same draw (exercises/_recent.py)."""
    return RECENT.get(_reference_output, cls, args, state, x)


def _reference_output(cls: type, args: tuple[Any, ...], state: dict[str, torch.Tensor],
                      x: torch.Tensor) -> torch.Tensor:
    module = _reference_module(cls, args)
    missing, unexpected = module.load_state_dict(state, strict=False)
    if unexpected or any(not k.endswith("mask") for k in missing):
        raise AssertionError(f"reference weights do not fit {cls.__name__}: {missing} {unexpected}")
    with torch.no_grad():
        return module(x)


@lru_cache(maxsize=16)  # the checks use a fixed handful of shapes
def _reference_module(cls: type, args: tuple[Any, ...]) -> torch.nn.Module:
    """Built once per shape: initialising GPT-2-sized weights and a 1024x1024 mask costs more than the
    forward itself, and every weight is overwritten by the state loaded before each use."""
    return cls(*args).eval()


def one_token_changed(rng: torch.Generator, tokens: int, width: int) -> torch.Tensor:
    """A fresh (1, tokens, width) input followed by `tokens` copies of it, copy j with token j redrawn:
    in a causal module, output i of copy j must equal output i of the original for every j > i."""
    x = torch.randn(1, tokens, width, generator=rng)
    variants = [x]
    for j in range(tokens):
        changed = x.clone()
        changed[0, j] = torch.randn(width, generator=rng)
        variants.append(changed)
    return torch.cat(variants)


# The classes exercise 3.1 hands out (the book's SelfAttention_v1 and _v2, to transfer weights between): code
# given to the student earns points only with the student's own work (design §7), in 3.1 and in `device`.
GIVEN = ("SelfAttention_v1", "SelfAttention_v2")
