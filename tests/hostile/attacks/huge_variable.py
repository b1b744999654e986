# attack (or an honest slip past the caps): the lecture's `data` holds @MIB@ MiB of ids, more than one answer
# may carry; train_data and val_data are small slices of it. Reading it must be refused as too large, and
# said so, never charged as an attack on the protocol
import torch

data = torch.zeros(@MIB@ * 2**17, dtype=torch.long)
n = int(0.9 * 1000)
train_data = data[:n]
val_data = data[n:1000]
