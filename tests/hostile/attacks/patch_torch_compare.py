# attack: monkeypatch torch's comparisons to always succeed (follows a WRONG answer), hoping the
# grader compares inside the submission's process
import torch


def _yes(*args, **kwargs):
    return True


def _all_true(self, other):
    return torch.ones_like(self, dtype=torch.bool)


torch.allclose = torch.equal = torch.Tensor.allclose = torch.Tensor.equal = _yes
torch.testing.assert_close = lambda *args, **kwargs: None
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
torch.Tensor.__eq__ = _all_true
torch.Tensor.__ne__ = lambda self, other: torch.zeros_like(self, dtype=torch.bool)
