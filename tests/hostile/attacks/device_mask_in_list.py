# attack: the reference CausalAttention with its mask kept in a list, where .to(device) never looks
# (a plain attribute would be caught; a list of tensors is not a tensor attribute) (follows the answers)
class CausalAttention(CausalAttention):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.masks = [self._buffers.pop("mask")]

    mask = property(lambda self: self.masks[0])
