# attack: an honest file under a name that is not UTF-8 (GBK bytes, as Chinese Windows zips write
# `作业.py`), which Python spells with lone surrogates (surrogateescape): the batch's parent encoded each
# job strictly and stopped with "internal error: UnicodeEncodeError" before anyone was graded; Gradescope
# wrote no results.json. The name is carried, shown escaped, and costs no one anything.
