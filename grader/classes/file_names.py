"""What an LMS's download says in a file's name (`grade batch --student-pattern`): whose hand-in it is, the
student's id in the LMS, and whether the LMS called it late. Names only: nothing is opened here."""
from __future__ import annotations

import re
from dataclasses import dataclass

from grader.classes.zips import RosterError

# Named patterns: an LMS's download names. Canvas's (`get_filename` in its lib/content_zipper.rb) are
# `NAME_USERID_FILEID_file`, `NAME_LATE_USERID_FILEID_file` for a late hand-in, and with anonymous grading
# `anon_ANONID_FILEID_file` and `LATE_anon_ANONID_FILEID_file`. NAME is the sortable name in lower case with
# every character but word characters removed: a Chinese name stays in Chinese characters, and digits and `_`
# may stay (Canvas itself reads the user id as the first `_digits_`, as this does). Older Canvas wrote `late`
# in lower case. An anonymous hand-in's id is its student's name and id: it is no user id of Canvas's gradebook.
PRESETS = {"canvas": r"^(?:(?!(?:LATE_)?anon_)(?P<student>\w+?)_)?(?:(?P<late>LATE|late)_)?"
                     r"(?P<lms_id>anon_[^\W_]+|\d+)_\d+_."}
ANONYMOUS = "anon_"  # how Canvas's ids of anonymous hand-ins start


@dataclass(frozen=True)
class Named:
    """What one file name says: the student's name as spelled, their LMS id, and a late hand-in."""

    spelled: str
    lms_id: str = ""
    late: bool = False


@dataclass(frozen=True)
class StudentPattern:
    """--student-pattern: a preset's name or a regular expression. Its group `student` names the student (else
    its `lms_id` group, where `student` matched nothing: an anonymous hand-in; a pattern without a `student`
    group: its first group, else the whole match); `lms_id` and `late` groups are kept with the results."""

    given: str  # as the instructor wrote it: `canvas`, or the expression
    regex: re.Pattern[str]

    @classmethod
    def compile(cls, given: str | None) -> StudentPattern | None:
        if given is None:
            return None
        try:
            return cls(given, re.compile(PRESETS.get(given, given)))
        except re.error as exc:
            raise RosterError("roster.bad_pattern", pattern=given, error=str(exc)) from None

    def read(self, name: str) -> Named | None:
        """What `name` says, or None where it does not match or names no student."""
        match = self.regex.search(name)
        if match is None:
            return None
        groups = match.groupdict()
        if "student" in groups:
            spelled = groups["student"] or groups.get("lms_id")
        else:
            spelled = match[1] if match.re.groups else match[0]
        if not spelled:
            return None
        return Named(spelled, groups.get("lms_id") or "", bool(groups.get("late")))
