# The template with every body typed from the book: its listings 3.3-3.5, comments and all, and the
# one-line answers of exercises 3.1-3.3. Nothing in it is the student's own.
"""Chapter 3 exercises: attention mechanisms / 第 3 章练习：注意力机制

Fill in every body that raises NotImplementedError, keeping the names and
signatures: the grader imports them by name.
请补全所有抛出 NotImplementedError 的部分，并保持名称和签名不变：评分程序按名称导入它们。
"""
import torch
import torch.nn as nn


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
    """Section 3.5.3: self-attention that cannot see future tokens, with dropout on
    the attention weights; input shape (batch, num_tokens, d_in).
    3.5.3 节：看不到后续 Token 的自注意力，并对注意力权重使用 dropout；
    输入形状为 (batch, num_tokens, d_in)。
    """

    def __init__(self, d_in, d_out, context_length,
                 dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout) # New
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1)) # New

    def forward(self, x):
        b, num_tokens, d_in = x.shape # New batch dimension b
        # For inputs where `num_tokens` exceeds `context_length`, this will result in errors
        # in the mask creation further below.
        # In practice, this is not a problem since the LLM (chapters 4-7) ensures that inputs
        # do not exceed `context_length` before reaching this forward method.
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.transpose(1, 2) # Changed transpose
        attn_scores.masked_fill_(  # New, _ ops are in-place
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)  # `:num_tokens` to account for cases where the number of tokens in the batch is smaller than the supported context_size
        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )
        attn_weights = self.dropout(attn_weights) # New

        context_vec = attn_weights @ values
        return context_vec


class MultiHeadAttentionWrapper(nn.Module):
    """Section 3.6.1: num_heads CausalAttention modules in self.heads, outputs
    concatenated along the last dimension.
    3.6.1 节：在 self.heads 中堆叠 num_heads 个 CausalAttention 模块，
    并沿最后一个维度拼接它们的输出。
    """

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    """Section 3.6.2: one query/key/value projection of size d_out split into
    num_heads heads, causal mask, merged heads followed by out_proj.
    3.6.2 节：将大小为 d_out 的查询/键/值投影分割成 num_heads 个头，
    使用因果掩码，合并各头输出后再经过 out_proj。
    """

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert (d_out % num_heads == 0), \
            "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads # Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask",
            torch.triu(torch.ones(context_length, context_length),
                       diagonal=1)
        )

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        # As in `CausalAttention`, for inputs where `num_tokens` exceeds `context_length`,
        # this will result in errors in the mask creation further below.
        # In practice, this is not a problem since the LLM (chapters 4-7) ensures that inputs
        # do not exceed `context_length` before reaching this forward method.

        keys = self.W_key(x) # Shape: (b, num_tokens, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

        # Original mask truncated to the number of tokens and converted to boolean
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]

        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec) # optional projection

        return context_vec


def transfer_weights(sa_v1, sa_v2):
    """Exercise 3.1 / 练习 3.1

    EN: Transfer the weights of a SelfAttention_v2 instance into a
    SelfAttention_v1 instance so that both produce the same outputs.
    Hint: nn.Linear stores its weight transposed.

    ZH: 将 SelfAttention_v2 实例的权重转移到 SelfAttention_v1 实例中，
    使两者输出相同。提示：nn.Linear 以转置形式存储权重。
    """
    sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)
    sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)
    sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)


def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    """Exercise 3.2 / 练习 3.2

    EN: Change the input arguments of the MultiHeadAttentionWrapper(...,
    num_heads=2) call so that the output context vectors are two-dimensional
    instead of four-dimensional while keeping num_heads=2. Hint: you don't
    have to modify the class implementation; you just have to change one of
    the other input arguments.

    ZH: 更改 MultiHeadAttentionWrapper (..., num_heads=2) 调用的输入参数，
    使输出上下文向量为二维而不是四维，同时保持 num_heads=2 的设置。
    提示：你不需要修改类的实现、你只需要更改其他一个输入参数。
    """
    return MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2)


def build_gpt2_small_attention(dropout=0.0):
    """Exercise 3.3 / 练习 3.3

    EN: Using the MultiHeadAttention class, initialize a multi-head attention
    module that has the same number of attention heads as the smallest GPT-2
    model (12 attention heads). Also ensure that you use the respective input
    and output embedding sizes similar to GPT-2 (768 dimensions). Note that
    the smallest GPT-2 model supports a context length of 1024 tokens.

    ZH: 使用 MultiHeadAttention 类，初始化一个具有与最小 GPT-2 模型相同数量的
    注意力头（12 个注意力头）的 MultiHeadAttention 模块。
    同时确保你使用与 GPT-2 相似的输入和输出嵌入规模（768 维）。
    请注意，最小的 GPT-2 模型支持 1024 个 Token 的上下文长度。
    """
    return MultiHeadAttention(768, 768, 1024, dropout, num_heads=12)
