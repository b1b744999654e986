"""Where a student's feedback page lies in a class's output folder: the batch writes it there, and the class
views (the overview, the mistakes, the look-alike pages) link to it."""
from __future__ import annotations

import re
import uuid


def page_name(student: str) -> str:
    """The student's feedback page inside the output folder: a safe file name, unique per student."""
    slug = re.sub(r"[^\w.-]+", "_", student).strip("._")[:80] or "student"
    if slug != student:  # two names that slug alike ("a b", "a_b") keep apart
        slug += "-" + uuid.uuid5(uuid.NAMESPACE_URL, student).hex[:8]
    return f"pages/{slug}.html"
