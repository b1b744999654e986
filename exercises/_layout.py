"""Finding which weight plays which role by what it does, for a module whose names say nothing.

A student may call the query matrix `self.a`: the judge then loads weights of its own into every
parameter, runs the module once, and tries each assignment of the roles (query, key, value, out) to
parameters of fitting shapes against a model computed here. The assignment that reproduces the module's
output is its layout; none means the class computes something else, or nothing, and a check that needs
the weights mapped fails. Used where _attention's name patterns find no layout.
"""
from __future__ import annotations

import itertools
import math
from functools import partial
from typing import Any, Sequence

import torch

from grader.checks import Obj, SandboxClient
from ._attention import (
    MAX_WIDTH,
    Layout,
    Reference,
    Roles,
    attend,
    bug_models,
    fresh_state,
    is_mask,
    per_head,
    reproduces,
)

MAX_TRIALS = 1000  # role assignments tried on one module (4! x 4! for a MultiHeadAttention with biases)
MAX_DRAWN = 1 << 24  # weight elements the judge draws to find a module's roles (GPT-2's attention: 2.4M)


def _unoriented(value: torch.Tensor, want: tuple[int, int], linear: bool) -> torch.Tensor | None:
    """The inverse of _oriented: a parameter's value in nn.Linear layout `want`, None when it fits neither way."""
    shape = tuple(value.shape)
    if shape == want and (linear or shape != want[::-1]):
        return value
    return value.T if shape == want[::-1] else None


def find_layout(sb: SandboxClient, module: Obj, groups: list[list[dict[str, Any]]], x: torch.Tensor,
                reference: Reference, *, d_in: int, d_out: int, out_proj: bool = False,
                rng: torch.Generator | None = None, own: dict[str, torch.Tensor] | None = None,
                variants: Sequence[Reference] = ()) -> Layout | None:
    """Which parameter plays which role, found by what it does, for weights whose names say nothing
    (self.a, self.b, self.c). Each parameter holds a value (random ones the judge draws and loads, or the
    module's `own`, read back), the module runs once on x, and every assignment of the roles to parameters of
    fitting shapes is computed here with `reference`, then, only when none fits, with each of `variants`
    (models of the usual bugs, so a bug is charged where it belongs, not as weights that map to nothing);
    the assignment whose output equals the module's is the layout. `groups` are the heads of a wrapper (one
    group for a single module); a parameter named as a mask is no weight (is_mask). None when no assignment
    reproduces the module: a class that computes something else, or nothing."""
    groups = [[p for p in group if not is_mask(p["name"])] for group in groups]
    options = [_assignments(group, d_in, d_out, out_proj) for group in groups]
    if not options or not all(options) or math.prod(map(len, options)) > MAX_TRIALS:
        return None
    params = [p for group in groups for p in group]
    if own is not None:
        if not {p["name"] for p in params} <= set(own):
            return None
        values = own
    else:
        if rng is None or sum(math.prod(p["shape"]) for p in params) > MAX_DRAWN:
            return None
        values = {p["name"]: _drawn(rng, p["shape"]) for p in params}
        sb.load_state(module, values)
    got = sb.forward(module, x)
    fitting = []  # (an assignment, one head's roles per group), where every value fits its role
    for combo in itertools.product(*options):
        roles = [r for layout in combo if (r := _roles(values, layout, d_in, d_out)) is not None]
        if len(roles) == len(combo):
            fitting.append((combo, roles))
    for model in (reference, *variants):
        for combo, roles in fitting:
            if reproduces(got, partial(model, x, roles)):
                return {name: role for layout in combo for name, role in layout.items()}
    return None


def _assignments(group: list[dict[str, Any]], d_in: int, d_out: int, out_proj: bool) -> list[Layout]:
    """Every way to give the weight roles to the group's matrices and their biases to its vectors, by shape."""
    matrices = [p for p in group if len(p["shape"]) == 2]
    vectors = [p for p in group if len(p["shape"]) == 1]
    weights = ["q", "k", "v", "o"] if out_proj else ["q", "k", "v"]
    if len(matrices) != len(weights) or len(matrices) + len(vectors) != len(group) or len(vectors) > len(weights):
        return []
    if any(tuple(p["shape"]) != (d_out,) for p in vectors):
        return []
    found = []
    for order in itertools.permutations(matrices):
        if all(_fits(p["shape"], role, d_in, d_out) for p, role in zip(order, weights)):
            given = {p["name"]: role for p, role in zip(order, weights)}
            found += [{**given, **{p["name"]: role for p, role in zip(vectors, biased)}}
                      for biased in itertools.permutations(weights, len(vectors))]
    return found


def _fits(shape: list[int], role: str, d_in: int, d_out: int) -> bool:
    want = (d_out, d_out if role == "o" else d_in)
    return tuple(shape) in (want, want[::-1])


def _drawn(rng: torch.Generator, shape: list[int]) -> torch.Tensor:
    bound = (3 / max(1, shape[-1])) ** 0.5
    return torch.empty(*shape).uniform_(-bound, bound, generator=rng)


def _roles(values: dict[str, torch.Tensor], layout: Layout, d_in: int, d_out: int) -> Roles | None:
    """The roles a layout reads from these values (nn.Linear layout), None when a value does not fit its role."""
    found: dict[str, torch.Tensor] = {}
    for name, role in layout.items():
        value = values[name]
        if value.dim() == 1:
            if tuple(value.shape) != (d_out,):
                return None
            found[f"{role}_b"] = value
            continue
        weight = _unoriented(value, (d_out, d_out if role == "o" else d_in), name.endswith(".weight"))
        if weight is None:
            return None
        found[role] = weight
    return Roles(**found)


def roles_read(params: list[dict[str, Any]], state: dict[str, torch.Tensor], layout: Layout, d_in: int,
               d_out: int) -> Roles | None:
    """A module's own weights in the judge's layout, by a layout found by behaviour (find_layout)."""
    return _roles({p["name"]: state[p["name"]] for p in params if p["name"] in layout}, layout, d_in, d_out)


def wrapper_layout(sb: SandboxClient, wrapper: Obj, rng: torch.Generator, d_in: int, d_out: int,
                   tokens: int) -> Layout | None:
    """The roles of a wrapper's heads found by behaviour (find_layout), its output being its heads' outputs
    concatenated on the last dim, heads with one of attend's bugs included; None when no assignment
    reproduces it. A projection after torch.cat is set to the identity first (neutral_projection)."""
    heads = list(per_head(wrapper.info.get("parameters", [])).values())
    neutral_projection(sb, wrapper, d_out * len(heads))
    x = torch.randn(2, tokens, d_in, generator=rng)
    return find_layout(sb, wrapper, heads, x, partial(_concatenated, None), d_in=d_in, d_out=d_out, rng=rng,
                       variants=bug_models(_concatenated))


def computes_heads(sb: SandboxClient, wrapper: Obj, roles: list[Roles], state: dict[str, torch.Tensor], d_in: int,
                   tokens: int, rng: torch.Generator) -> bool:
    """Whether the wrapper, with `state` (the judge's `roles`, one per head) written into the parameters its
    description names, gives those heads' outputs side by side: the book's attention or one of attend's bugs,
    which the mask exercise charges. The description is the child's claim; only the output shows that the
    named weights are heads the forward runs. A projection after torch.cat is set to the identity first."""
    neutral_projection(sb, wrapper, roles[0].q.shape[0] * len(roles))
    sb.load_state(wrapper, state)
    x = torch.randn(2, tokens, d_in, generator=rng)
    got = sb.forward(wrapper, x)
    models: list[Reference] = [partial(_concatenated, None), *bug_models(_concatenated)]
    return any(reproduces(got, partial(model, x, roles)) for model in models)


def neutral_projection(sb: SandboxClient, wrapper: Obj, width: int | None = None) -> str | None:
    """The name of a wrapper's projection after torch.cat (out_proj, as the book's bonus wrapper has), set to
    the identity so that the wrapper computes its heads side by side: 3.2 and the mask exercise judge the
    heads, and what a projection after them does is neither's subject. A projection is the wrapper's one
    square matrix outside its heads (of `width`, where given), with at most a bias beside it; None when the
    wrapper holds nothing outside its heads, or something else there."""
    params = wrapper.info.get("parameters", [])
    in_heads = {p["name"] for group in per_head(params).values() for p in group}
    rest = [p for p in params if p["name"] not in in_heads]
    matrices = [p for p in rest if len(p["shape"]) == 2]
    if len(matrices) != 1 or len(rest) > 2:
        return None
    matrix, vectors = matrices[0], [p for p in rest if p is not matrices[0]]
    n = matrix["shape"][0]
    if (list(matrix["shape"]) != [n, n] or not 0 < n <= MAX_WIDTH or width not in (None, n)
            or any(list(p["shape"]) != [n] for p in vectors)):
        return None
    sb.load_state(wrapper, {matrix["name"]: torch.eye(n), **{p["name"]: torch.zeros(n) for p in vectors}})
    return str(matrix["name"]).rsplit(".", 1)[0]


def _concatenated(bug: str | None, x: torch.Tensor, roles: list[Roles]) -> torch.Tensor:
    """What a wrapper of single-head attentions computes: their outputs side by side."""
    return torch.cat([attend(x, r, 1, bug) for r in roles], dim=-1)


def map_attention(sb: SandboxClient, module: Obj, rng: torch.Generator, x: torch.Tensor, *, num_heads: int, d_in: int,
                  d_out: int, out_proj: bool, identity_out: bool = False
                  ) -> tuple[Roles, dict[str, torch.Tensor]] | None:
    """Fresh weights for one attention module, in its own layout (fresh_state): read from its parameters'
    names, else found by what each does on x (find_layout), with or without out_proj where the book has one,
    the book's attention or one of its usual bugs. None when neither maps them."""
    params = module.info.get("parameters", [])
    found = fresh_state(params, rng, d_in, d_out, out_proj=out_proj, identity_out=identity_out)
    if found is not None:
        return found
    model = partial(_heads_of_one, num_heads=num_heads)
    for proj in ((True, False) if out_proj else (False,)):
        layout = find_layout(sb, module, [params], x, partial(model, None), d_in=d_in, d_out=d_out,
                             out_proj=proj, rng=rng, variants=bug_models(model))
        if layout is not None:
            return fresh_state(params, rng, d_in, d_out, out_proj=proj, layout=layout, identity_out=identity_out)
    return None


def _heads_of_one(bug: str | None, x: torch.Tensor, roles: list[Roles], num_heads: int) -> torch.Tensor:
    """What one multi-head attention module computes (find_layout's model: one group of roles)."""
    return attend(x, roles[0], num_heads, bug)
