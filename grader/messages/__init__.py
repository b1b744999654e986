"""Every sentence a user reads, in English and Chinese (catalogue), split by area, and the errors that
carry one of them to the command line's one edge (errors)."""
