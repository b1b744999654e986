# attack: an answer whose exception message carries HTML and terminal escapes, so the grader's own
# feedback about it repeats them (follows the answers)
def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    raise ValueError("<script>alert(4)</script>\x1b[2J\x1b]0;title\x07\n<script>alert(5)</script>\x1b[1A")
