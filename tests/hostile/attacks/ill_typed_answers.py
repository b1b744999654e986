# attack: the child's own copy of the grader (grader.sandbox.child, grader.sandbox.inventory) is patched to
# answer probes with well-framed but ill-typed values: @WHAT@. What a MultiHeadAttention describes, or one
# probe's whole answer, is corrupted; everything else is answered honestly (follows the answers)
import gc

from grader.sandbox import child, inventory

WHAT = "@WHAT@"
_describe_module = inventory.describe_module
_export = child.Child.export
_inventory = child.Child.inventory


def _corrupted(info):
    params = info["parameters"]
    if WHAT == "shape_strings":
        for p in params:
            p["shape"] = [str(d) for d in p["shape"]]
    elif WHAT == "negative_shape":
        for p in params:
            p["shape"] = [-d for d in p["shape"]]
    elif WHAT == "huge_shape":
        for p in params:
            p["shape"] = [2**62] * len(p["shape"])
    elif WHAT == "flag_strings":
        for p in params:
            p["requires_grad"] = "yes"
    elif WHAT == "missing_key":
        del info["parameters"]
    elif WHAT == "list_for_mapping":
        info["parameters"] = [5] * len(params)
    return info


def _describe(module):
    info = _describe_module(module)
    return _corrupted(info) if type(module).__name__ == "MultiHeadAttention" else info


def _export_int_info(self, value):
    out = _export(self, value)
    if isinstance(out, dict) and type(out.get("info")) is dict and out["info"].get("class") == "MultiHeadAttention":
        return {"__ref__": out["__ref__"], "info": 5}
    return out


def _inventory_bad_bindings(self):
    entries = _inventory(self)
    for entry in entries:
        entry["bindings"] = [{"cell": str(b["cell"]), "name": 5} for b in entry["bindings"]]
    return entries


def _five(self, *args, **kwargs):
    return 5


inventory.describe_module = _describe
if WHAT == "int_info":
    child.Child.export = _export_int_info
for _server in [o for o in gc.get_objects() if isinstance(o, child.Child)]:
    if WHAT == "bad_bindings":
        _server.ops["inventory"] = _inventory_bad_bindings.__get__(_server)
    if WHAT.endswith("_int"):  # state_int, describe_int, variables_int, inventory_int: 5 for a mapping
        _server.ops[WHAT[:-len("_int")]] = _five.__get__(_server)
