# attack: one cell of thousands that each raise, so that every output would list every one of them
raise ValueError("cell @N@ failed: " + "boom " * 60)
