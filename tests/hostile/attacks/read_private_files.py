# attack: read files that only their owner (root) may read: /etc/shadow, whose folder the sandbox must
# let the submission read, and @SECRET@, a root-only file the test made; print what was read
for _path in ("/etc/shadow", "@SECRET@"):
    try:
        with open(_path) as _f:
            print("READ", _path, _f.read(200).replace("\n", " "))
    except OSError as _exc:
        print("DENIED", _path, type(_exc).__name__)
