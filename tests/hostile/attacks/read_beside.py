# attack: print what the files beside the submission named @NAMES@ hold, as the sandbox was given them
# (a second name of a root-only file, made by an archive's hard-link entry; a file the folder's owner may
# not read)
for _name in "@NAMES@".split(","):
    try:
        with open(_name) as _f:
            print("READ", _name, _f.read(200).replace("\n", " "))
    except OSError as _exc:
        print("ABSENT", _name, type(_exc).__name__)
