# attack: output flood -- 300 MB through print() to sys.stdout
_line = "x" * (1 << 20)
for _ in range(300):
    print(_line)
print("FLOOD-END-@MARK@")
