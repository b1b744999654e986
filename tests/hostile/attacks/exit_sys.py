# attack: sys.exit(0) -- raise SystemExit to stop the grader (a .py file runs as one cell per `# %%` block)
import sys

sys.exit(0)
