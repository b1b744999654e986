"""Hana: chapter 3 exercises, using PyTorch's fused attention where it can."""
import torch
import torch.nn as nn
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
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.p = dropout

    def forward(self, x):
        return F.scaled_dot_product_attention(self.W_query(x), self.W_key(x), self.W_value(x),
                                              dropout_p=self.p if self.training else 0.0, is_causal=True)


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList([CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                                    for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([attention(x) for attention in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.heads = num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.p = dropout

    def forward(self, x):
        n, length, width = x.shape

        def split(t):
            return t.view(n, length, self.heads, -1).transpose(1, 2)

        out = F.scaled_dot_product_attention(split(self.W_query(x)), split(self.W_key(x)), split(self.W_value(x)),
                                             dropout_p=self.p if self.training else 0.0, is_causal=True)
        return self.out_proj(out.transpose(1, 2).reshape(n, length, -1))


def transfer_weights(sa_v1, sa_v2):
    state = {name: getattr(sa_v2, name).weight.T for name in ("W_query", "W_key", "W_value")}
    sa_v1.load_state_dict(state)


def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    return MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2)


def build_gpt2_small_attention(dropout=0.0):
    return MultiHeadAttention(768, 768, 1024, dropout, 12)
