import torch
from torch import nn


class TinyHead(nn.Module):
    """Bob's head: one matrix for q, k and v, split afterwards."""

    def __init__(self, dim, head):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * head)
        self.head = head

    def forward(self, x):
        q, k, v = self.qkv(x).split(self.head, dim=-1)
        att = (q @ k.transpose(-2, -1)) * self.head ** -0.5
        mask = torch.ones(x.shape[-2], x.shape[-2], dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        return att @ v


def count_parameters(module):
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


if __name__ == "__main__":
    head = TinyHead(16, 4)
    print(count_parameters(head), head(torch.randn(2, 7, 16)).shape)
