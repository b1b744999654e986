"""Device placement: modules must carry all their tensors with `.to(device)`, and agree across devices.

The points rest on what the judge measures itself, from tensors it chose and got back (`unfollowed`): it
reads a module's parameters and buffers, loads them into a fresh instance with the tokens of its input and
every mask among them reordered alike (in a random order drawn here), and the output must come back
reordered alike. A mask the judge cannot reorder is not one `.to(device)` moves, unless the forward makes
it for each input: such a forward takes more tokens than its context, where a mask kept in a plain
attribute, a list, a dict, a global or a closure cannot; one that refuses them too is judged by its run on
the judge's accelerator, or without one by the class's text (`made_for_each_input`). What the child says
about itself (its inventory, and the run of its forward on a stand-in device, grader.sandbox.placement) is
the submission's claim: a tensor it names fails the check, told as the student wrote it, but its silence
earns nothing. Only the device of a tensor the forward makes (with device=x.device or without), or reads
from a table longer than any input tried, is beyond plain data: there the child's report is the only witness.

The accelerator comparison runs on the device the judge itself finds (CUDA or MPS, or the one
GRADER_ACCELERATOR names), never on one the child claims; without one it is skipped before anything is
asked, and worth 0 points, so nobody loses marks for lacking a GPU, whatever the budget has left. NaN and
the infinities where the CPU has them are agreement, and a class whose CPU forward fails is passed over: both
are bugs of what the forward computes, which the mask exercise charges.

Each class is judged on its own: one whose constructor does not take the book's arguments is a note on
the page, and the others are still checked.
"""
from __future__ import annotations

import ast
from typing import Any

import torch

from grader.checks import (
    ATOL, BadReturn, BudgetExhausted, Exercise, Msg, NotFound, Obj, Outcome, ProbeFailure, ProbeTimeout, RTOL,
    SandboxClient, StudentError, build, class_definitions, classes, close, comparison, computes_nothing, constant,
    describe_value, failed, judge_accelerator, max_diff, passed, sample, skipped, with_object,
)
from grader.solutions import chapter3
from ._attention import GIVEN

# How each book class is built for these checks, and the input it takes.
BUILDS: dict[str, tuple[tuple[Any, ...], tuple[int, ...]]] = {
    "SelfAttention_v1": ((3, 2), (6, 3)),
    "SelfAttention_v2": ((3, 2), (6, 3)),
    "CausalAttention": ((5, 4, 8, 0.0), (2, 8, 5)),
    "MultiHeadAttentionWrapper": ((5, 3, 8, 0.0, 2), (2, 8, 5)),
    "MultiHeadAttention": ((5, 8, 8, 0.0, 2), (2, 8, 5)),
}
# Where a tensor left behind was found -> its message (device.registered.*), which names it in {name} ...
NAMED = {"module": "registered.module", "registered": "registered.unmoved"}
# ... or the words (device.where.*) the message registered.behind names it with; else it is `unknown`.
WHERE = ("attribute", "global", "closure")

EXERCISE = Exercise(
    id="device",
    title={"en": "Ready for the GPU", "zh": "可以在 GPU 上运行"},
    statement={
        "en": "Every tensor a module needs (weights, masks) must be a registered parameter or buffer so that "
              "module.to(device) moves it; the module must then give the same outputs on a GPU as on the CPU.",
        "zh": "模块需要的每个张量（权重、掩码）都必须注册为参数或缓冲区，这样 module.to(device) 才会移动它；"
              "模块在 GPU 上的输出必须与在 CPU 上相同。",
    },
    reference=chapter3,
    order=5,
    messages={
        "not_found.own": {
            "en": "only {given} were found, which exercise 3.1 hands out: they earn nothing here by themselves. "
                  "Write CausalAttention, MultiHeadAttentionWrapper or MultiHeadAttention (book sections 3.5-3.6).",
            "zh": "只找到了 {given}，它们是练习 3.1 提供的类，在此本身不得分。请编写 CausalAttention、"
                  "MultiHeadAttentionWrapper 或 MultiHeadAttention（见书 3.5–3.6 节）。",
        },
        "not_found.modules": {
            "en": "no attention class (SelfAttention_v1/v2, CausalAttention, MultiHeadAttentionWrapper, "
                  "MultiHeadAttention) and no module object.",
            "zh": "没有注意力类（SelfAttention_v1/v2、CausalAttention、MultiHeadAttentionWrapper、"
                  "MultiHeadAttention），也没有模块对象。",
        },
        "registered.ok": {
            "en": "Every tensor of {classes} is a parameter or buffer, so .to(device) moves it.{unbuilt}",
            "zh": "{classes} 的所有张量都是参数或缓冲区，.to(device) 会移动它们。{unbuilt}",
        },
        "registered.plain": {
            "en": "{cls}.{attr} is a plain tensor attribute: .to(device) leaves it on the CPU and the GPU "
                  "forward fails. Use self.register_buffer('{leaf}', ...) (book section 3.5.3).",
            "zh": "{cls}.{attr} 是普通张量属性：.to(device) 不会移动它，在 GPU 上 forward 会失败。"
                  "请使用 self.register_buffer('{leaf}', ...)（见书 3.5.3 节）。",
        },
        "registered.behind": {
            "en": "{cls}.forward uses {tensor} (shape {shape}), which .to(device) leaves on the CPU: the GPU "
                  "forward fails. Keep it in the module with self.register_buffer(...) (book section 3.5.3).",
            "zh": "{cls}.forward 使用了 {tensor}（形状 {shape}），.to(device) 不会移动它，在 GPU 上 forward 会失败。"
                  "请用 self.register_buffer(...) 把它放进模块（见书 3.5.3 节）。",
        },
        "registered.made": {
            "en": "{cls}.forward makes a tensor (shape {shape}) on the CPU whatever device the input is on, and "
                  "uses it with the input's ({op}): the GPU forward fails. Make it with device=x.device, or "
                  "keep it in the module with self.register_buffer(...) (book section 3.5.3).",
            "zh": "{cls}.forward 总是在 CPU 上创建一个张量（形状 {shape}），不管输入在哪个设备上，"
                  "并把它与输入的张量一起使用（{op}），在 GPU 上 forward 会失败。请用 device=x.device 创建它，"
                  "或用 self.register_buffer(...) 把它放进模块（见书 3.5.3 节）。",
        },
        "registered.module": {
            "en": "{cls}.forward uses {name} (shape {shape}), a tensor of a module kept where .to(device) does "
                  "not look (a plain list, a dict or a global): it stays on the CPU and the GPU forward fails. "
                  "Keep submodules as attributes or in nn.ModuleList.",
            "zh": "{cls}.forward 使用了 {name}（形状 {shape}），它属于一个放在 .to(device) 不会查看的地方"
                  "（普通列表、字典或全局变量）的模块：它会留在 CPU 上，在 GPU 上 forward 会失败。"
                  "请把子模块设为属性或放进 nn.ModuleList。",
        },
        "registered.unmoved": {
            "en": "{cls}.forward uses self.{name} (shape {shape}), a parameter or buffer that {cls}.to(device) "
                  "leaves on the CPU: the GPU forward fails. Let nn.Module move it (do not override .to() or "
                  "_apply).",
            "zh": "{cls}.forward 使用了 self.{name}（形状 {shape}），这是 {cls}.to(device) 没有移动的参数或缓冲区，"
                  "在 GPU 上 forward 会失败。请让 nn.Module 自己移动它（不要重写 .to() 或 _apply）。",
        },
        "registered.outside": {
            "en": "{cls}: a fresh instance given its parameters and buffers computes something else (largest "
                  "difference {diff:.3g}), so its forward also uses tensors that are neither: .to(device) leaves "
                  "them on the CPU and the GPU forward fails. Keep weights in nn.Parameter or nn.Linear, submodules "
                  "as attributes or in nn.ModuleList, and masks with self.register_buffer(...) (book section 3.5.3).",
            "zh": "{cls}：新建的实例载入它的参数和缓冲区后算出了不同的结果（最大差值 {diff:.3g}），说明它的 forward "
                  "还用到了既不是参数也不是缓冲区的张量：.to(device) 会把它们留在 CPU 上，在 GPU 上 forward 会失败。"
                  "请把权重放在 nn.Parameter 或 nn.Linear 中，子模块设为属性或放进 nn.ModuleList，"
                  "掩码用 self.register_buffer(...) 保存（见书 3.5.3 节）。",
        },
        "registered.kept": {
            "en": "{cls}.forward keeps its mask where .to(device) does not look: the grader reordered the tokens and "
                  "the module's buffers alike and the output did not follow, and the forward cannot take {tokens} "
                  "tokens, as a mask made for each input could. That mask stays on the CPU and the GPU forward "
                  "fails. Keep it with self.register_buffer(...) (book section 3.5.3), or make it in forward with "
                  "device=x.device.",
            "zh": "{cls}.forward 把掩码放在了 .to(device) 不会查看的地方：评分器按同一顺序重排了词元和模块的缓冲区，"
                  "输出却没有随之重排；而且 forward 无法处理 {tokens} 个词元，而为每个输入新建的掩码可以。"
                  "这个掩码会留在 CPU 上，在 GPU 上 forward 会失败。请用 self.register_buffer(...) 保存它"
                  "（见书 3.5.3 节），或在 forward 中用 device=x.device 创建它。",
        },
        "unbuilt": {
            "en": " {classes} could not be built with the book's arguments ({error}), so the grader did not build it.",
            "zh": "{classes} 无法用书中的参数构建（{error}），因此评分器没有构建它。",
        },
        "where.attribute": {"en": "self.{name}", "zh": "self.{name}"},
        "where.global": {"en": "the global {name}", "zh": "全局变量 {name}"},
        "where.closure": {"en": "{name}, a variable of an enclosing function", "zh": "外层函数中的变量 {name}"},
        "where.unknown": {"en": "a tensor that is neither a parameter nor a buffer",
                          "zh": "一个既不是参数也不是缓冲区的张量"},
        "accelerator.none": {
            "en": "No CUDA or MPS device on this machine: the comparison was skipped (0 points either way).",
            "zh": "本机没有 CUDA 或 MPS 设备：已跳过此比较（不影响得分）。",
        },
        "accelerator.ok": {
            "en": "On {device}, {classes} give the same outputs as on the CPU (rtol {rtol:g}, atol {atol:g}).{unbuilt}",
            "zh": "在 {device} 上，{classes} 的输出与 CPU 相同（rtol {rtol:g}，atol {atol:g}）。{unbuilt}",
        },
        "accelerator.mismatch": {
            "en": "{cls} on {device} differs from the CPU (largest difference {diff:.3g}).",
            "zh": "{cls} 在 {device} 上与 CPU 的输出不同（最大差值 {diff:.3g}）。",
        },
    },
)


Built = list[tuple[Obj, Obj, tuple[int, ...]]]  # (the class, a fresh instance, its input shape)
Refused = list[tuple[str, StudentError]]  # (a class, what its constructor raised on the book's arguments)


def built(sb: SandboxClient) -> tuple[Built, Refused]:
    """A fresh instance of each book class the submission defines, and the classes whose constructor refused
    the book's arguments: one class that takes other arguments is not the others' failure."""
    found: Built = []
    refused: Refused = []
    for name, (args, shape) in BUILDS.items():
        defined = classes(sb, name)
        if defined:
            try:
                found.append((defined[-1], build(sb, defined[-1], chapter3, *args), shape))
            except StudentError as exc:
                refused.append((name, exc))
    return found, refused


def unbuilt(refused: Refused) -> Msg | str:
    """The note on a passing check that names the classes the judge could not build ("" for none)."""
    if not refused:
        return ""
    error = refused[0][1].detail or {}
    return Msg("device.unbuilt", {"classes": ", ".join(name for name, _ in refused),
                                  "error": f"{error.get('type')}: {error.get('message', '')}"[:200]})


def nothing_built(refused: Refused) -> Exception:
    """What a check raises when it has nothing to judge: the first constructor's error, else not found."""
    return refused[0][1] if refused else NotFound("not_found.modules")


def nothing_of_their_own(measured: list[str], unrun: list[ProbeFailure], refused: Refused) -> Exception | None:
    """What a check raises where none of the classes it measured is one the student had to write: 3.1's given
    classes alone earn nothing (design §7), so the first failure of the student's own says why (a template's
    NotImplementedError), else that only given classes were found. None where the student's own work counts."""
    if any(name not in GIVEN for name in measured):
        return None
    if unrun:
        return unrun[0]
    return refused[0][1] if refused else NotFound("not_found.own", given=", ".join(GIVEN))


@EXERCISE.check("registered", points=4, title={"en": "All tensors are parameters or buffers",
                                               "zh": "所有张量都是参数或缓冲区"})
def registered(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    found, refused = built(sb)
    # (class name, what the submission holds, the instance's description)
    modules = [(cls.cls, cls, obj.info) for cls, obj, _ in found]
    modules += [(obj.cls, obj, obj.info) for obj in sb.inventory()
                if obj.kind == "module" and obj.info.get("defined_here")]
    if not modules:
        raise nothing_built(refused)
    for name, origin, info in modules:  # the child's own listing: a plain tensor it names is a failure
        plain = info.get("plain_tensors", [])
        if plain:
            attr = plain[0]["name"]
            outcome = used_instead(sb, origin, found, [t["name"] for t in plain], rng) or failed(
                "registered.plain", {"plain_tensors": plain}, cls=name, attr=attr, leaf=attr.rsplit(".", 1)[-1])
            return with_object(outcome, origin)
    ran = []
    unrun: list[ProbeFailure] = []  # a forward that raises or hangs is charged where the forward is graded
    for cls, module, shape in found:
        x = torch.randn(*shape, generator=rng)
        try:  # a bad or lying answer is charged here, like a forward that runs but fails when watched
            out = sb.forward(module, x, label=f"{cls.cls}.forward")
        except (StudentError, ProbeTimeout, BudgetExhausted) as exc:
            unrun.append(exc)
            continue
        # Output the same for every row of x (different sequences, or the different tokens of
        # SelfAttention's 2-D input): it would pass on its list of tensors without computing anything.
        if constant(out):
            return with_object(computes_nothing(cls.cls, out), cls)
        ran.append((cls, module, x, out))
    if not ran:  # nothing the judge could measure, so nothing to give points for: the first failure says why
        raise unrun[0] if unrun else nothing_built(refused)
    given_only = nothing_of_their_own([cls.cls for cls, *_ in ran], unrun, refused)
    if given_only is not None:
        raise given_only
    for cls, module, x, out in ran:
        measured = unfollowed(sb, cls, module, x, out, rng)  # before left_behind moves the module for good
        behind = left_behind(sb, cls, module, x)
        if behind:  # the tensor the child names, whether or not the judge saw it
            return with_object(left_behind_outcome(cls.cls, behind), cls)
        if measured:
            return with_object(measured, cls)
    return passed("registered.ok", classes=", ".join(sorted({n for n, _, _ in modules})), unbuilt=unbuilt(refused))


def used_instead(sb: SandboxClient, origin: Obj, found: Built, plain: list[str],
                 rng: torch.Generator) -> Outcome | None:
    """The failure for what the forward of a class holding plain tensor attributes really leaves behind, where
    the stand-in run names something other than those attributes (a global mask beside an unused
    self.score_mask): the message names the tensor the forward used. None where the class was not built, its
    forward does not run, or the run names one of the plain attributes or nothing."""
    for cls, module, shape in found:
        if cls is not origin:
            continue
        try:
            behind = left_behind(sb, cls, module, torch.randn(*shape, generator=rng))
        except (StudentError, ProbeTimeout, BudgetExhausted):
            return None
        if behind and not any(t["kind"] == "attribute" and t["name"] in plain for t in behind):
            return left_behind_outcome(cls.cls, behind)
    return None


def unfollowed(sb: SandboxClient, cls: Obj, module: Obj, x: torch.Tensor, out: torch.Tensor,
               rng: torch.Generator) -> Outcome | None:
    """The judge's own measurement (None: what the forward uses is the module's parameters and buffers).

    A fresh instance gets the module's state with its masks reordered as the tokens of x (`reordered`, in
    an order drawn here): attention then gives `out` reordered alike, whatever else it computes. Where it
    does not, the fresh instance given the state as it was must at least give `out` (else the state is not
    all that decides the output), and then either the reordered masks changed its output (they are what it
    masks with, in a forward that mixes up its tokens: a bug the mask exercise charges) or they are not its
    mask. Such a forward must then be one that makes its mask for each input: it takes an input longer than
    its context, which a mask kept outside the module does not."""
    tokens = x.shape[-2]
    if out.dim() < 2 or out.shape[-2] != tokens:
        raise BadReturn(f"{cls.cls}.forward", f"{describe_value(out)} for an input of shape {list(x.shape)}")
    info = module.info
    state = sb.state(module, [t["name"] for t in [*info.get("parameters", []), *info.get("buffers", [])]])
    order = torch.randperm(tokens, generator=rng)
    if order.equal(torch.arange(tokens)):  # the one order under which a mask kept elsewhere would follow
        order = order.flip(0)
    fresh = build(sb, cls, chapter3, *BUILDS[cls.cls][0])
    label = f"{cls.cls}.forward (in a fresh instance"
    moved = sb.forward(fresh, x[..., order, :], label=f"{label}, tokens and masks reordered)",
                       load_first={name: reordered(t, order) for name, t in state.items()})
    if close(moved, out[..., order, :], equal_nan=True):
        return None
    again = sb.forward(fresh, x, label=f"{label} with the same state)", load_first=state)
    if not close(again, out, equal_nan=True):
        return failed("registered.outside", comparison(out, again), cls=cls.cls, diff=max_diff(out, again))
    if not close(sb.forward(fresh, x[..., order, :], label=f"{label}, tokens reordered)"), moved, equal_nan=True):
        return None
    longer = torch.randn(*x.shape[:-2], 2 * tokens, x.shape[-1], generator=rng)
    evidence: dict[str, Any] = {"order": order.tolist(), "tokens": 2 * tokens}
    try:
        got = sb.forward(fresh, longer, label=f"{label}, {2 * tokens} tokens)")
        if got.shape[:-1] == longer.shape[:-1]:
            return None
        evidence["got_shape"] = list(got.shape)
    except (StudentError, BadReturn) as exc:
        evidence["error"] = exc.detail
    if made_for_each_input(sb, cls, fresh, x, out, label):
        return None
    return failed("registered.kept", evidence, cls=cls.cls, tokens=2 * tokens)


def made_for_each_input(sb: SandboxClient, cls: Obj, fresh: Obj, x: torch.Tensor, out: torch.Tensor,
                        label: str) -> bool:
    """For a forward that keeps no mask the judge can reorder and refuses inputs longer than its context, where
    a mask kept outside the module and one made for each input give the same outputs on the CPU. On an
    accelerator the judge found, the forward's own run there decides: a mask left on the CPU cannot run there.
    Without one, the class's text (docs/security.md): a causal mask it makes in a method other than __init__
    (scaled_dot_product_attention's is_causal, tril or triu) is made for each input. A tensor left behind
    that the stand-in run names still fails the check (left_behind); only its silence is taken on trust here."""
    device = judge_accelerator()
    if device is not None and torch.device(device).type != "cpu":
        try:
            return close(sb.forward(fresh, x, label=f"{label} on {device})", device=device), out, equal_nan=True)
        except (StudentError, BadReturn):
            return False
    definitions = class_definitions(sb.submission, cls.cls)
    return bool(definitions) and makes_causal_mask(definitions[-1])


def makes_causal_mask(definition: ast.ClassDef) -> bool:
    """Whether a method of the class other than __init__ makes a causal mask: calls
    scaled_dot_product_attention with an is_causal that is not literally False or None, or tril or triu."""
    for method in definition.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name == "__init__":
            continue
        for node in ast.walk(method):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("tril", "triu", "tril_", "triu_"):
                return True
            if name == "scaled_dot_product_attention" and any(
                    kw.arg == "is_causal" and not (isinstance(kw.value, ast.Constant) and kw.value.value in (False, None))
                    for kw in node.keywords):
                return True
    return False


def reordered(t: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
    """A mask with its first len(order) rows and columns in that order (the rest as they were), any other
    tensor as it is. A mask is square in its last two dims, at least as long as the input, and the same along
    each diagonal, as a causal mask is in every encoding (bool, 0/1, 0/-inf, tril or triu); no weight a real
    initialisation draws is, and one that is (all equal, the identity) is left the same by the reordering."""
    n = len(order)
    square = t.dim() >= 2 and t.shape[-1] == t.shape[-2] >= n
    if not (square and torch.equal(t[..., 1:, 1:], t[..., :-1, :-1])):
        return t
    index = torch.cat([order, torch.arange(n, t.shape[-1])])
    return t[..., index, :][..., :, index]


def left_behind(sb: SandboxClient, cls: Obj, module: Obj, x: torch.Tensor) -> list[dict[str, Any]]:
    """What the forward on x mixes with the module's tensors after .to(device) left it on the CPU: seen on
    the stand-in device; where the forward cannot run there, in the watched CPU forward of a fresh
    instance (the first was moved for good), which must then run: an error is never a pass by itself."""
    found, error = sb.left_behind(module, x)
    if error and not found:
        found, _ = sb.left_behind(build(sb, cls, chapter3, *BUILDS[cls.cls][0]), x, move=False)
    return found


def left_behind_outcome(cls: str, found: list[dict[str, Any]]) -> Outcome:
    """The first tensor left behind, told as the student wrote it: a plain attribute keeps the message it
    always had; one made in forward needs device=x.device; a module's, registering the module; a
    parameter's or buffer's, leaving .to() alone; anything else, register_buffer."""
    kind, name, shape = found[0]["kind"], found[0]["name"], "×".join(map(str, found[0]["shape"]))
    evidence = {"left_behind": found}
    if kind == "attribute" and all(part.isidentifier() for part in name.split(".")):
        return failed("registered.plain", evidence, cls=cls, attr=name, leaf=name.rsplit(".", 1)[-1])
    if kind == "forward":
        return failed("registered.made", evidence, cls=cls, shape=shape, op=found[0]["op"])
    if kind in NAMED:
        return failed(NAMED[kind], evidence, cls=cls, name=name, shape=shape)
    where = Msg(f"device.where.{kind}", {"name": name}) if kind in WHERE else Msg("device.where.unknown")
    return failed("registered.behind", evidence, cls=cls, tensor=where, shape=shape)


@EXERCISE.check("accelerator", points=2, title={"en": "Same outputs on the GPU as on the CPU",
                                                "zh": "GPU 与 CPU 输出相同"}, accelerator=True)
def accelerator(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    device = judge_accelerator()
    if device is None:  # before any probe: a spent budget cannot make this a deadline where there is no GPU
        return skipped("accelerator.none")
    found, refused = built(sb)
    if not found:
        raise nothing_built(refused)
    compared: list[str] = []
    unrun: list[ProbeFailure] = []  # a forward that fails on the CPU is charged where the forward is graded
    for cls, module, shape in found:
        name = cls.cls
        x = torch.randn(*shape, generator=rng)
        try:
            on_cpu = sb.forward(module, x, label=f"{name}.forward on cpu")
        except (StudentError, ProbeTimeout, BudgetExhausted) as exc:
            unrun.append(exc)
            continue
        if constant(on_cpu):  # the same output everywhere, computed from nothing: no comparison to pass
            return with_object(computes_nothing(name, on_cpu), cls)
        on_device = sb.forward(module, x, label=f"{name}.to('{device}').forward", device=device)
        # float32 with TF32 off: the same kernels in another order agree far inside `close`'s tolerance. NaN and
        # the infinities where the CPU has them agree: a mask bug that makes them (a fully masked row) is the
        # mask exercise's to charge, and the same on every device
        if not close(on_cpu, on_device, equal_nan=True):
            evidence = {"cpu": sample(on_cpu), "device": sample(on_device), **comparison(on_cpu, on_device)}
            outcome = failed("accelerator.mismatch", evidence, cls=name, device=device,
                             diff=max_diff(on_cpu, on_device))
            return with_object(outcome, cls)
        compared.append(name)
    if not compared:  # nothing the judge could compare, so nothing to give points for: the first failure says why
        raise unrun[0]
    given_only = nothing_of_their_own(compared, unrun, refused)
    if given_only is not None:
        raise given_only
    return passed("accelerator.ok", device=device, classes=", ".join(compared),
                  rtol=RTOL, atol=ATOL, unbuilt=unbuilt(refused))
