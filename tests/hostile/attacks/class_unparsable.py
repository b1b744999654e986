# attack: a file Python cannot parse, as long as the grader lets a file be: a table of training pairs
# whose bracket never closes, one pair a line at column 0, thousands of lines (the test appends them). The
# statement splitter asked at every line whether the open statement was complete by re-tokenising it,
# quadratic in its length (a minute at 6,500 lines), and a batch's parent read every hand-in before grading
# anyone: one such file held up its whole class.
# Toy data for the attention exercises
import torch

pairs = [
