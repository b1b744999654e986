# attack: HTML and terminal escapes in printed output and in an exception message (its own cell)
print("<script>alert(1)</script>")
print("\x1b[2J\x1b[H\x1b]0;pwned title\x07\x1b[31mALL TESTS PASSED\x1b[0m")
raise ValueError("<script>alert(2)</script> \x1b[2J \x1b]0;title\x07 <img src=x onerror=alert(3)>")
