"""Reference answers for the chapter 3 exercises; the grader compares submissions against them."""
