# attack: the child's own copy of grader.sandbox.inventory describes every CausalAttention with a plain tensor
# record that fits the schema and carries one more field, nested @DEPTH@ lists deep: the schema ignores
# unknown fields, so only a bound on the answer's depth keeps it from the judge's recursive walks (its
# evidence, its result), where it would raise outside any check (follows the answers)
from grader.sandbox import inventory

_plain_tensors = inventory.plain_tensors
_deep = []
for _ in range(@DEPTH@):
    _deep = [_deep]


def _deep_plain_tensors(module, *walk):
    if type(module).__name__ != "CausalAttention":
        return _plain_tensors(module, *walk)
    return [{"name": "mask_copy", "shape": [4, 4], "note": _deep}]


inventory.plain_tensors = _deep_plain_tensors
