"""Device placement: modules must carry all their tensors with `.to(device)`, and agree across devices.

A mask kept as a plain tensor attribute works on the CPU and breaks on a GPU, so it is caught on
every machine by listing the module's tensors. The accelerator comparison itself needs CUDA or MPS;
without one it is skipped and worth 0 points, so nobody loses marks for lacking a GPU.
"""
from __future__ import annotations

import os
from typing import Any

import torch

from exercises._attention import classes, comparison, max_diff, sample, with_object
from grader.exercise import Exercise, NotFound, Outcome, failed, passed, skipped
from grader.session import Obj, Sandbox
from solutions import chapter3

# How each book class is built for these checks, and the input it takes.
BUILDS: dict[str, tuple[tuple[Any, ...], tuple[int, ...]]] = {
    "SelfAttention_v1": ((3, 2), (6, 3)),
    "SelfAttention_v2": ((3, 2), (6, 3)),
    "CausalAttention": ((5, 4, 8, 0.0), (2, 8, 5)),
    "MultiHeadAttentionWrapper": ((5, 3, 8, 0.0, 2), (2, 8, 5)),
    "MultiHeadAttention": ((5, 8, 8, 0.0, 2), (2, 8, 5)),
}
# float32 with TF32 off: the same kernels in a different order agree far inside this.
RTOL, ATOL = 1e-4, 1e-5
# Tests (and users without a GPU who want to see the comparison run) may name a device here.
DEVICE_OVERRIDE = "GRADER_ACCELERATOR"

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
        "not_found.modules": {
            "en": "no attention class (SelfAttention_v1/v2, CausalAttention, MultiHeadAttentionWrapper, "
                  "MultiHeadAttention) and no module object.",
            "zh": "没有注意力类（SelfAttention_v1/v2、CausalAttention、MultiHeadAttentionWrapper、"
                  "MultiHeadAttention），也没有模块对象。",
        },
        "registered.ok": {
            "en": "Every tensor of {classes} is a parameter or buffer, so .to(device) moves it.",
            "zh": "{classes} 的所有张量都是参数或缓冲区，.to(device) 会移动它们。",
        },
        "registered.plain": {
            "en": "{cls}.{attr} is a plain tensor attribute: .to(device) leaves it on the CPU and the GPU "
                  "forward fails. Use self.register_buffer('{leaf}', ...) (book section 3.5.3).",
            "zh": "{cls}.{attr} 是普通张量属性：.to(device) 不会移动它，在 GPU 上 forward 会失败。"
                  "请使用 self.register_buffer('{leaf}', ...)（见书 3.5.3 节）。",
        },
        "accelerator.none": {
            "en": "No CUDA or MPS device on this machine: the comparison was skipped (0 points either way).",
            "zh": "本机没有 CUDA 或 MPS 设备：已跳过此比较（不影响得分）。",
        },
        "accelerator.ok": {
            "en": "On {device}, {classes} give the same outputs as on the CPU (rtol {rtol:g}, atol {atol:g}).",
            "zh": "在 {device} 上，{classes} 的输出与 CPU 相同（rtol {rtol:g}，atol {atol:g}）。",
        },
        "accelerator.mismatch": {
            "en": "{cls} on {device} differs from the CPU (largest difference {diff:.3g}).",
            "zh": "{cls} 在 {device} 上与 CPU 的输出不同（最大差值 {diff:.3g}）。",
        },
    },
)


def built(sb: Sandbox) -> list[tuple[Obj, Obj, tuple[int, ...]]]:
    """(the class, a fresh instance, its input shape) for each book class the submission defines."""
    found = []
    for name, (args, shape) in BUILDS.items():
        defined = classes(sb, name)
        if defined:
            found.append((defined[-1], sb.construct(defined[-1], *args), shape))
    return found


@EXERCISE.check("registered", points=4, title={"en": "All tensors are parameters or buffers",
                                               "zh": "所有张量都是参数或缓冲区"})
def registered(sb: Sandbox, ref: object, rng: torch.Generator) -> Outcome:
    # (class name, what the submission holds, the instance's description)
    modules = [(cls.cls, cls, obj.info) for cls, obj, _ in built(sb)]
    modules += [(obj.cls, obj, obj.info) for obj in sb.inventory()
                if obj.kind == "module" and obj.info.get("defined_here")]
    if not modules:
        raise NotFound("not_found.modules")
    for name, origin, info in modules:
        plain = info.get("plain_tensors", [])
        if plain:
            attr = plain[0]["name"]
            outcome = failed("registered.plain", {"plain_tensors": plain}, cls=name, attr=attr,
                             leaf=attr.rsplit(".", 1)[-1])
            return with_object(outcome, origin)
    return passed("registered.ok", classes=", ".join(sorted({n for n, _, _ in modules})))


@EXERCISE.check("accelerator", points=2, title={"en": "Same outputs on the GPU as on the CPU",
                                                "zh": "GPU 与 CPU 输出相同"})
def accelerator(sb: Sandbox, ref: object, rng: torch.Generator) -> Outcome:
    device = os.environ.get(DEVICE_OVERRIDE) or next(
        (name for name, present in sb.devices().items() if present), None)
    if device is None:
        return skipped("accelerator.none")
    found = built(sb)
    if not found:
        raise NotFound("not_found.modules")
    for cls, module, shape in found:
        name = cls.cls
        x = torch.randn(*shape, generator=rng)
        on_cpu = sb.forward(module, x, label=f"{name}.forward on cpu")
        on_device = sb.forward(module, x, label=f"{name}.to('{device}').forward", device=device)
        if not (on_cpu.shape == on_device.shape and torch.allclose(on_cpu, on_device, rtol=RTOL, atol=ATOL)):
            evidence = {"cpu": sample(on_cpu), "device": sample(on_device), **comparison(on_cpu, on_device)}
            outcome = failed("accelerator.mismatch", evidence, cls=name, device=device,
                             diff=max_diff(on_cpu, on_device))
            return with_object(outcome, cls)
    return passed("accelerator.ok", device=device, classes=", ".join(c.cls for c, _, _ in found),
                  rtol=RTOL, atol=ATOL)
