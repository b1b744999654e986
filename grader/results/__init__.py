"""The result model (grader.results.model), its statuses, a class's entries and look-alike pairs, its bounds, its
cells and its JSON (its format and the steps from earlier ones), under one name."""
from grader.results.bounds import (
                                   EVIDENCE_CHARS,
                                   FILES,
                                   ITEMS,
                                   LEFT_OUT,
                                   LISTED_PROBLEMS,
                                   MAGICS,
                                   MESSAGE_CHARS,
                                   SHORT_CHARS,
                                   SOURCE_CHARS,
                                   SOURCES_CHARS,
                                   TEXT_CHARS,
                                   bounded,
                                   capped,
)
from grader.results.cells import cell_at, count_cells, deepest_frame, frames_of, stopped_because, where
from grader.results.entry import Entry, LeftOut, StudentKey, student_key, student_label
from grader.results.look_alike import LookAlike, Pair
from grader.results.model import (
                                   Adjustment,
                                   CellRecord,
                                   CheckResult,
                                   ExerciseResult,
                                   RunResult,
                                   SubmissionInfo,
                                   SubmissionResult,
                                   Ungraded,
                                   percent,
)
from grader.results.migrate import FORMAT, REPORT_TYPE
from grader.results.serial import NON_FINITE, from_json, outcome_from_json, to_json
from grader.results.statuses import CellStatus, Status, SubmissionStatus, UngradedStatus

__all__ = ["EVIDENCE_CHARS", "FILES", "ITEMS", "LEFT_OUT", "LISTED_PROBLEMS", "MAGICS", "MESSAGE_CHARS", "SHORT_CHARS",
           "SOURCE_CHARS", "SOURCES_CHARS", "TEXT_CHARS", "bounded", "capped", "cell_at", "count_cells",
           "deepest_frame", "frames_of", "stopped_because", "where", "Adjustment", "CellRecord", "CellStatus", "CheckResult",
           "ExerciseResult", "SubmissionResult", "RunResult", "Status", "SubmissionInfo", "SubmissionStatus", "Ungraded",
           "UngradedStatus", "Entry", "LeftOut", "StudentKey", "student_key", "student_label", "LookAlike", "Pair",
           "percent", "FORMAT", "NON_FINITE", "REPORT_TYPE", "from_json", "outcome_from_json", "to_json"]
