# attack: @CLS@.@METHOD@ returns `@RETURN@`: a value of the wrong kind, or a tensor of the wrong rank,
# dtype or width (an empty last dim, a scalar, ids, NaN), which the judge's own evidence code must survive
# without a grader error; the answers beside it keep their points (follows the answers)
import torch


def _odd(self, x, *args, **kwargs):
    return @RETURN@


@CLS@.@METHOD@ = _odd
del _odd
