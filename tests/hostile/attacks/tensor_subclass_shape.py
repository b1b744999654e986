# attack: forward returns a torch.Tensor subclass that fakes its shape and size: it holds one
# zero per row but claims the right output's shape (follows the answers)
import torch


class Liar(torch.Tensor):
    claimed = None

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func == torch.Tensor.shape.__get__ or func is torch.Tensor.size:
            return Liar.claimed
        if func is torch.Tensor.numel:
            return Liar.claimed.numel()
        if func in (torch.allclose, torch.equal, torch.Tensor.allclose, torch.Tensor.equal):
            return True
        return super().__torch_function__(func, types, args, kwargs or {})


def _lie(self, x):
    Liar.claimed = torch.Size([*x.shape[:-1], self.d_out])
    return torch.zeros(*x.shape[:-1], 1).as_subclass(Liar)


MultiHeadAttention.forward = _lie
