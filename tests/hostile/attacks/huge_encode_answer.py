# attack: encode answers @IDS@ ids (an int64 tensor) for any string, a few characters long as the judge asks:
# the judge must bound its own work by what it asked (one id per character), not by what came back: no list
# built id by id, no ids formatted into a label or a message (follows the lecture)
import torch


def encode(s):
    return torch.zeros(@IDS@, dtype=torch.long)
