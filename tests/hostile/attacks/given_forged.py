# attack: take the book's classes from the grader's copy and say they are the submission's own: each class's
# __module__ and __qualname__ rewritten, and the inventory's description of every class told that its module
# is this file's (the child runs the grader's inventory code in the submission's process, so it can)
from grader.classes.given import book_chapter3 as _book
import grader.sandbox.inventory as _inventory

for _name in ("SelfAttention_v1", "SelfAttention_v2", "CausalAttention", "MultiHeadAttentionWrapper",
              "MultiHeadAttention"):
    _cls = getattr(_book, _name)
    _cls.__module__ = __name__
    globals()[_name] = _cls

_describe = _inventory.describe


def _forged(obj, own_files):
    info = _describe(obj, own_files)
    if isinstance(info, dict):
        info.update({"module": __name__, "file": __file__, "defined_here": True})
    return info


_inventory.describe = _forged
