# named wrong answers: text edits of solutions/chapter3.py, each yielding one known bug
"""Bugs are kept as edits of the reference so that they follow it when it changes.

Each entry is (bug_id, old, new). MASK_BUGS edit text that CausalAttention and
MultiHeadAttention share, so each old occurs twice and both classes get the bug,
except the MHA-only ones (scale_by_d_out, no_split_transpose, no_merge_transpose, softmax_heads_dim:
dim=1 of MultiHeadAttention's (b, num_heads, n, n) scores is the heads). mask_shifted moves the mask up a
row (triu diagonal=2), so every token also sees the next one.
mask_parameter and plain_tensor_mask also hit both classes and missing_transpose all
three transfer_weights lines; every other old occurs exactly once. Each group's bugs
belong to one exercise (BELONGS_TO): graded on ch03, a file with one of them loses
points there and nowhere else.
"""
from pathlib import Path

SOLUTION = Path(__file__).resolve().parents[2] / "solutions" / "chapter3.py"

MASK_OLD = """        attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
"""
MHA_SOFTMAX = """        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        context_vec = (attn_weights @ values).transpose(1, 2)
"""
SPLIT_TRANSPOSE = """        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
"""
TRANSFER = """    sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)
    sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)
"""
TRANSFER_VALUE = "    sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)\n"
REGISTER_MASK = 'self.register_buffer(\n            "mask", '

WRAPPER = "MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2)"
GPT2 = "MultiHeadAttention(768, 768, 1024, dropout, num_heads=12)"

MASK_BUGS = [
    ("diagonal_zero", "diagonal=1)", "diagonal=0)"),
    ("inverted_mask", "torch.triu(torch.ones(context_length, context_length), diagonal=1)",
     "torch.tril(torch.ones(context_length, context_length), diagonal=-1)"),
    ("mask_not_applied", "attn_scores = attn_scores.masked_fill(", "attn_scores.masked_fill("),
    ("softmax_wrong_dim", MASK_OLD, MASK_OLD.replace("dim=-1)", "dim=-2)")),
    ("no_scaling", MASK_OLD, MASK_OLD.replace(" / keys.shape[-1]**0.5", "")),
    ("scale_by_d_out", MHA_SOFTMAX, MHA_SOFTMAX.replace("keys.shape[-1]**0.5", "self.d_out**0.5")),
    ("no_split_transpose", SPLIT_TRANSPOSE, ""),
    ("no_merge_transpose", "context_vec = (attn_weights @ values).transpose(1, 2)",
     "context_vec = (attn_weights @ values)"),
    ("mask_not_sliced", "mask_bool = self.mask.bool()[:num_tokens, :num_tokens]",
     "mask_bool = self.mask.bool()"),
    ("mask_after_softmax_no_renorm", MASK_OLD,
     "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)\n"
     "        attn_weights = attn_weights * torch.tril(torch.ones_like(attn_weights))\n"),
    ("query_key_swapped", "attn_scores = queries @ keys.transpose(", "attn_scores = keys @ queries.transpose("),
    ("softmax_heads_dim", MHA_SOFTMAX, MHA_SOFTMAX.replace("dim=-1)", "dim=1)")),
    ("mask_shifted", "diagonal=1)", "diagonal=2)"),
    ("scale_by_tokens", MASK_OLD, MASK_OLD.replace("keys.shape[-1]**0.5", "num_tokens**0.5")),
]

SA_BUGS = [
    ("missing_transpose", ".weight.T)", ".weight)"),
    ("value_not_moved", TRANSFER_VALUE, ""),
    ("query_key_swapped", TRANSFER,
     "    sa_v1.W_query = torch.nn.Parameter(sa_v2.W_key.weight.T)\n"
     "    sa_v1.W_key = torch.nn.Parameter(sa_v2.W_query.weight.T)\n"),
    ("plain_tensor", "torch.nn.Parameter(sa_v2.W_query.weight.T)", "sa_v2.W_query.weight.T"),
    ("nothing_transferred", TRANSFER + TRANSFER_VALUE, "    pass\n"),
]

WRAPPER_BUGS = [
    ("changed_num_heads", WRAPPER,
     WRAPPER.replace("d_in, 1,", "d_in, 2,").replace("num_heads=2", "num_heads=1")),
    ("four_dim", WRAPPER, WRAPPER.replace("d_in, 1,", "d_in, 2,")),
]

GPT2_BUGS = [
    ("qkv_bias", GPT2, GPT2.replace("num_heads=12)", "num_heads=12, qkv_bias=True)")),
    ("no_out_proj", "self.out_proj = nn.Linear(d_out, d_out)", "self.out_proj = nn.Identity()"),
    ("mask_parameter", REGISTER_MASK, "self.mask = nn.Parameter(\n            "),
    ("wrong_context", GPT2, GPT2.replace("1024", "768")),
    ("wrong_heads", GPT2, GPT2.replace("num_heads=12", "num_heads=6")),
]

DEVICE_BUGS = [
    ("plain_tensor_mask", REGISTER_MASK, "self.mask = (\n            "),
]

BELONGS_TO = {"mask": MASK_BUGS, "3.1": SA_BUGS, "3.2": WRAPPER_BUGS, "3.3": GPT2_BUGS, "device": DEVICE_BUGS}


def apply(src, old, new):
    """Fail loudly when the reference drifts, rather than grade an unmutated copy."""
    if old not in src:
        raise ValueError(f"mutation target not found in source: {old!r}")
    return src.replace(old, new)
