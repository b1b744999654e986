# attack: forward returns a torch.Tensor subclass whose __torch_function__ claims equality with
# anything, holding a WRONG value (half the right output) (follows the answers)
import torch


class Liar(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.allclose, torch.equal, torch.Tensor.allclose, torch.Tensor.equal):
            return True
        if func in (torch.isclose, torch.Tensor.__eq__, torch.eq):
            return torch.ones(args[0].shape, dtype=torch.bool)
        return super().__torch_function__(func, types, args, kwargs or {})


_right = MultiHeadAttention.forward


def _lie(self, x):
    return (_right(self, x) * 0.5).as_subclass(Liar)


MultiHeadAttention.forward = _lie
