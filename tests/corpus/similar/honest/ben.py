import torch
from torch import nn
import torch.nn.functional as F


class SelfAttention_v1(nn.Module):
    """Given by the book (section 3.4.1); exercise 3.1 transfers weights into it.
    书中给出（3.4.1 节）；练习 3.1 会把权重转移到这里。
    """

    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class SelfAttention_v2(nn.Module):
    """Given by the book (section 3.4.2); exercise 3.1 transfers weights out of it.
    书中给出（3.4.2 节）；练习 3.1 会从这里转移权重。
    """

    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.drop = nn.Dropout(dropout)
        self.register_buffer("tril", torch.tril(torch.ones(context_length, context_length)))

    def forward(self, x):
        n = x.size(1)
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / (k.size(-1) ** 0.5)
        scores = scores.masked_fill(self.tril[:n, :n] == 0, float("-inf"))
        return self.drop(F.softmax(scores, dim=-1)) @ v


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        heads = []
        for _ in range(num_heads):
            heads.append(CausalAttention(d_in, d_out, context_length, dropout, qkv_bias))
        self.heads = nn.ModuleList(heads)

    def forward(self, x):
        return torch.cat(tuple(h(x) for h in self.heads), dim=2)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        if d_out % num_heads:
            raise ValueError(f"d_out={d_out} is not divisible by num_heads={num_heads}")
        self.n_heads = num_heads
        self.d_head = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.drop = nn.Dropout(dropout)
        self.register_buffer("tril", torch.tril(torch.ones(context_length, context_length)))

    def forward(self, x):
        B, T, _ = x.shape
        q = self.W_query(x).reshape(B, T, self.n_heads, self.d_head).permute(0, 2, 1, 3)
        k = self.W_key(x).reshape(B, T, self.n_heads, self.d_head).permute(0, 2, 1, 3)
        v = self.W_value(x).reshape(B, T, self.n_heads, self.d_head).permute(0, 2, 1, 3)
        scores = torch.matmul(q, k.transpose(-2, -1)) / (self.d_head ** 0.5)
        scores = scores.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        weights = self.drop(F.softmax(scores, dim=-1))
        out = torch.matmul(weights, v).permute(0, 2, 1, 3).reshape(B, T, self.n_heads * self.d_head)
        return self.out_proj(out)


def transfer_weights(sa_v1, sa_v2):
    for name in ("W_query", "W_key", "W_value"):
        linear = getattr(sa_v2, name)
        setattr(sa_v1, name, nn.Parameter(linear.weight.detach().T.clone()))


def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    return MultiHeadAttentionWrapper(d_in=d_in, d_out=1, context_length=context_length, dropout=dropout, num_heads=2)


def build_gpt2_small_attention(dropout=0.0):
    return MultiHeadAttention(d_in=768, d_out=768, context_length=1024, dropout=dropout, num_heads=12)
