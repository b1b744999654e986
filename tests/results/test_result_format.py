"""The JSON result has a schema and a version (docs/json.md; nbformat's habit): the schema is generated from the
result model and shipped in the package, docs/json.md's field tables are generated from it, every result the
tests write validates against it (tests/conftest.py), and a result of an earlier format (tests/corpus/format1:
a result, a gradebook and a results.jsonl written by the grader before results were numbered) reads as today's.
"""
from __future__ import annotations

import copy
import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import ROOT
from grader.classes.gradebook import FILENAME, Gradebook
from grader.messages import catalogue
from grader.render import html
from grader.render.classbook import results_jsonl
from grader.results import FORMAT, REPORT_TYPE, RunResult, Ungraded, from_json, outcome_from_json, schema, to_json
from grader.results.migrate import IN_RUN_LANG, NewerFormat, upgrade
from helpers import require_extra, result_errors, results_in_text, results_off_schema

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

FORMAT_1 = ROOT / "tests" / "corpus" / "format1"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("json_fields", ROOT / "docs" / "json_fields.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def format_1() -> dict[str, Any]:
    """`grade ch03 answer.py --json` as the grader wrote it before results were numbered (a mutant with the
    mask's diagonal off by one, a cell that raised, a NaN in its evidence), in English."""
    data: dict[str, Any] = json.loads((FORMAT_1 / "run.json").read_text(encoding="utf-8"))
    return data


def format_1_lines() -> list[dict[str, Any]]:
    """The results.jsonl `grade batch` wrote then of the same answer (ann, graded in Chinese, her mask exercise
    adjusted by hand) and a broken notebook (bob)."""
    return [json.loads(line) for line in (FORMAT_1 / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def texts(data: dict[str, Any]) -> list[tuple[str, ...]]:
    """Every text of a format 1 result's exercises and checks, in the run's language and in every language."""
    return [(e["id"], e["title"], e["statement"], json.dumps(e["titles"]), json.dumps(e["statements"]))
            for e in data["exercises"]] + \
        [(c["id"], c["title"], c["message"], json.dumps(c["titles"]), json.dumps(c["messages"]))
         for e in data["exercises"] for c in e["checks"]]


def texts_of(run: RunResult) -> list[tuple[str, ...]]:
    return [(e.id, e.title, e.statement, json.dumps(e.titles), json.dumps(e.statements)) for e in run.exercises] + \
        [(c.id, c.title, c.message, json.dumps(c.titles), json.dumps(c.messages)) for e in run.exercises
         for c in e.checks]


# -- the schema, generated and shipped ---------------------------------------------------------------------------
def test_the_shipped_schema_is_what_the_model_generates() -> None:
    assert schema.PATH.read_text(encoding="utf-8") == schema.text(), \
        f"grader/results/result.schema.json is out of date: run `{schema.REGENERATE}`"


def test_the_schema_is_draft_2020_12_and_names_the_format() -> None:
    jsonschema = require_extra("jsonschema")
    spec = json.loads(schema.PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(spec)
    assert spec["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert {spec["$defs"][kind]["properties"]["format"]["const"] for kind in ("RunResult", "Ungraded")} == {FORMAT}


def test_the_package_ships_the_schema() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert schema.PATH.name in pyproject["tool"]["setuptools"]["package-data"]["grader.results"]


def test_docs_json_tables_are_what_the_schema_says() -> None:
    generator = _generator()
    page = generator.PATH.read_text(encoding="utf-8")
    assert generator.rendered(page) == page, f"docs/json.md's fields are out of date: run `{generator.REGENERATE}`"
    for single, keyed in IN_RUN_LANG.items():  # the prose says what format 2 dropped, and where it reads from
        assert f"`exercises[].checks[].{single}`" in page or f"`exercises[].{single}`" in page
        assert f"{keyed}[lang]" in page


# -- what the writer writes -------------------------------------------------------------------------------------
def test_a_run_and_an_ungraded_result_follow_the_schema_and_say_their_format() -> None:
    run = from_json(format_1())
    ungraded = Ungraded("ungradable", catalogue.Msg("cli.bad_notebook", {"path": "x.ipynb", "error": "broken"}))
    for result in (run, ungraded):
        data = json.loads(json.dumps(to_json(result), allow_nan=False))
        assert data["format"] == FORMAT and data[REPORT_TYPE] == type(result).__name__
        assert result_errors(data) == []
        assert outcome_from_json(data) == result


def test_no_text_is_written_twice() -> None:
    """Format 2 writes each title, statement and message once: in its map, under the run's language."""
    for old in (format_1(), format_1_lines()[0]["result"]):
        lang = old["lang"]
        data = to_json(from_json(old))
        for exercise in data["exercises"]:
            for part in (exercise, *exercise["checks"]):
                assert not set(part) & set(IN_RUN_LANG), sorted(part)
                assert all(lang in part[keyed] for keyed in IN_RUN_LANG.values() if keyed in part)


@pytest.mark.parametrize("breakage", ["no format", "an older format", "a dropped text", "a status off the words",
                                      "a missing score", "an unknown field", "a title in one language"])
def test_a_broken_result_is_rejected(breakage: str, tmp_path: Path) -> None:
    """The schema is strict enough to fail: each way of breaking a result is caught, in a file as the autouse
    check finds it (tests/conftest.py) and in a command's output (helpers.Result)."""
    data = to_json(from_json(format_1()))
    check = data["exercises"][0]["checks"][0]
    if breakage == "no format":
        del data["format"]
    elif breakage == "an older format":
        data["format"] = 1
    elif breakage == "a dropped text":
        check["title"] = check["titles"]["en"]
    elif breakage == "a status off the words":
        data["cells"][0]["status"] = "error"
    elif breakage == "a missing score":
        del data["exercises"][0]["score"]
    elif breakage == "an unknown field":
        data["submission"]["size"] = 1
    else:
        check["titles"] = "v1 and v2 agree"
    assert result_errors(data)
    folder = tmp_path / "written"
    folder.mkdir()
    (folder / "result.json").write_text(json.dumps(data), encoding="utf-8")
    (folder / "results.jsonl").write_text(json.dumps({"student": "ann", "result": data}) + "\n", encoding="utf-8")
    assert len(results_off_schema(folder)) == 2
    assert [where for where, _ in results_in_text(json.dumps(data, indent=2), "stdout")] == ["stdout"]
    shutil.rmtree(folder)  # this test's own breakage, which the autouse check would rightly fail


# -- earlier formats --------------------------------------------------------------------------------------------
def test_a_format_1_result_reads_with_every_text_it_held() -> None:
    old = format_1()
    assert "format" not in old and result_errors(old)  # it is not today's format
    run = from_json(old)
    assert texts_of(run) == texts(old)
    assert (run.score, run.max_score, run.cell_counts) == (old["score"], old["max_score"], old["cell_counts"])
    again = to_json(run)
    assert result_errors(again) == [] and from_json(again) == run


def test_each_earlier_shape_from_json_accepted_reads_as_format_1() -> None:
    """What readers before format 1 accepted still reads: an untagged run, a cell that raised spelled `error`,
    no cell counts, and the fields earlier writers left out (a check's every-language texts, its duration, the
    run's budget, its output)."""
    old = format_1()
    del old[REPORT_TYPE], old["cell_counts"], old["output_tail"], old["budget_s"], old["cells_s"], old["self_check"]
    del old["submission"]["files"], old["submission"]["left_out"], old["submission"]["header"]
    raised = next(cell for cell in old["cells"] if cell["status"] == "raised")
    raised["status"] = "error"
    check = old["exercises"][0]["checks"][0]
    del check["titles"], check["messages"], check["duration_s"], check["evidence"]
    run = from_json(copy.deepcopy(old))
    assert result_errors(to_json(run)) == []
    assert [cell.status for cell in run.cells].count("raised") == 1
    assert run.cell_counts == {"ok": sum(c["status"] == "ok" for c in old["cells"]), "raised": 1}
    first = run.exercises[0].checks[0]
    assert (first.title, first.message, first.titles, first.messages, first.duration_s) == (
        check["title"], check["message"], {"en": check["title"]}, {"en": check["message"]}, 0.0)
    assert (run.output_tail, run.budget_s, run.self_check, run.submission.files) == ("", 0.0, False, ())


def test_an_ungraded_result_of_format_1_reads() -> None:
    old = {REPORT_TYPE: "Ungraded", "status": "error", "problem": {"key": "batch.worker_lost"}}
    assert outcome_from_json(old) == Ungraded("error", catalogue.Msg("batch.worker_lost", {}))


def test_a_result_of_a_newer_format_is_refused_in_words() -> None:
    newer = {**to_json(from_json(format_1())), "format": FORMAT + 1}
    with pytest.raises(NewerFormat) as refused:
        from_json(newer)
    for lang in catalogue.LANGS:
        said = catalogue.text(refused.value.key, lang, **refused.value.args_)
        assert str(FORMAT + 1) in said and "pip install -U" in said
    with pytest.raises(NewerFormat):
        upgrade({"format": "2"})


def test_a_format_1_gradebook_still_opens_renders_and_exports(tmp_path: Path) -> None:
    """A gradebook `grade batch` wrote before results were numbered (ann graded in Chinese, her mask exercise
    adjusted by hand; bob's notebook broken) opens, and every output reads it as it was."""
    shutil.copyfile(FORMAT_1 / "gradebook.sqlite", tmp_path / FILENAME)
    lines = format_1_lines()
    with Gradebook(tmp_path / FILENAME) as book:
        ann, bob = sorted(book.latest(), key=lambda entry: entry.student)
    assert ann.run is not None and isinstance(bob.result, Ungraded)
    assert (ann.status, ann.score, bob.status, bob.problem and bob.problem.key) == \
        ("graded", lines[0]["score"], "ungradable", "cli.bad_notebook")
    assert ann.run.lang == "zh" and texts_of(ann.run) == texts(lines[0]["result"])
    assert [e.adjustment for e in ann.run.exercises if e.adjustment] == [
        from_json(lines[0]["result"]).exercises[3].adjustment]
    assert "掩码" in html.render(ann.run)
    for line in map(json.loads, results_jsonl([ann, bob]).splitlines()):
        assert line["result"] is None or (line["result"]["format"] == FORMAT and not result_errors(line["result"]))
