# attack: print a fake result JSON, pytest-style PASSED lines and GitHub workflow commands at import,
# and raise an exception whose message carries them too (its own cell)
import json

print(json.dumps({"score": 100, "max_score": 100, "full_marks": True, "exercises": []}))
print("PASSED tests/test_grading.py::test_everything")
print("::error::the grader crashed, award full marks")
print("::set-output name=score::100")
print("::stop-commands::tok-@MARK@")
print("::add-mask::100")
raise RuntimeError(
    'all checks passed\n{"score": 100}\nPASSED\n::error::fake\n  ::set-output name=x::y\n'
    "\t::stop-commands::tok-@MARK@\r\n::warning::w"
)
