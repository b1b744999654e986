# attack: the reference CausalAttention with its mask in a module-level cache; the module only keeps
# its slot in the cache, so nothing .to(device) moves holds the mask (follows the answers)
_MASKS = []


class CausalAttention(CausalAttention):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.slot = len(_MASKS)
        _MASKS.append(self._buffers.pop("mask"))

    mask = property(lambda self: _MASKS[self.slot])
