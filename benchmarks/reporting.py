"""How every benchmark ends: it reports and never judges, so a run that fails says why in one line and still exits 0
(a course's CI may run a benchmark without making its speed a gate)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn


def run(main: Callable[[], Any]) -> NoReturn:
    """`main()`, then exit 0 whatever happened; an exception is one line on stderr."""
    try:
        main()
    except Exception as exc:  # it reports, it doesn't judge
        print(f"benchmark failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    sys.exit(0)


def write_figures(figures: Any, path: str | Path | None) -> None:
    """The figures as strict JSON at `path`, where `--json` asked for them."""
    if path:
        Path(path).write_text(json.dumps(figures, indent=2, allow_nan=False), encoding="utf-8")
