"""Grading a whole class: who handed in what (roster, zips), the pool of judges and its workers, the
gradebook, parts of a class over machines (shards), and look-alike submissions (similarity)."""
