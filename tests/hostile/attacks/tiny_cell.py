# attack: one cell of thousands that each run fine, so that every output would list every one of them
tiny = @N@
