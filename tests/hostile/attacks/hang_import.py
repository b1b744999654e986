# attack: infinite loop at import -- the cell never finishes
while True:
    pass
