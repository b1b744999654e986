# mask style: F.scaled_dot_product_attention(q, k, v, is_causal=True), no mask at all, and inputs longer than the context refused — correct
import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.block_size = context_length
        self.dropout = dropout
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        n = x.shape[1]
        if n > self.block_size:
            raise ValueError(f"sequence of {n} tokens is longer than the block size {self.block_size}")
        q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                              is_causal=True)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.block_size = context_length
        self.n_head = num_heads
        self.dropout = dropout
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)

    def forward(self, x):
        B, T, C = x.size()
        if T > self.block_size:
            raise ValueError(f"cannot forward a sequence of length {T}, block size is only {self.block_size}")
        q = self.W_query(x).view(B, T, self.n_head, -1).transpose(1, 2)
        k = self.W_key(x).view(B, T, self.n_head, -1).transpose(1, 2)
        v = self.W_value(x).view(B, T, self.n_head, -1).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None,
                                           dropout_p=self.dropout if self.training else 0.0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, -1)
        return self.out_proj(y)
