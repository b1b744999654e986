# attack: characters a terminal, a spreadsheet or a browser obeys, printed and raised (its own cell):
# ESC sequences (clear, window title, hyperlink), BEL, CR, backspace, NUL, DEL, C1's one-byte CSI and
# a right-to-left override that shows text in another order than it is read
print("\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\\rALL PASSED\x08\x00\x7f\x9b31m\u202edegnar")
raise ValueError("\x1b[2J\x1b]0;pwned\x07\rALL TESTS PASSED\x08\x00\x7f\x9b31m \u202edegnar\u2066")
