"""Course repositories in CI: the `[tool.grader]` configuration and the files it names.

A course keeps its exercises in a repository; `grade ci` (grader/cli/ci.py) reads the configuration
found here, grades every file it names together as one submission (in CI and in the pre-commit hook
alike), and compares the score with the pass mark. This module holds the part without click: reading and checking the configuration,
choosing the files, and the verdict. Every problem is a `ConfigError`, told as one catalogue message.

The keys (in `grader.toml`, at top level or under `[tool.grader]`; in `pyproject.toml`, under
`[tool.grader]`):

    exercises  "all" or a list of exercise ids (or sets)            default "all"
    files      a list of globs relative to the repository root      required
    threshold  the pass mark, in percent of the points, 0 to 100    default 100
    timeout    seconds the whole submission may take, at least 1    default 60
    lang       "en" or "zh"                                         default: the locale
    pages      folder for the feedback pages                        default "grader-pages"
    exercise_folders  instructors' exercise folders (as `grade --exercises DIR`)  default none
    before_release  what the outputs show: "score", "verdicts" or "everything"  default "everything"
                    (grader.results.release; set it back to "everything" to release the feedback)

The repository root is the folder that holds the configuration file.
"""
from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Mapping, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # Gradescope's and Ubuntu 22.04's Python 3.10
    import tomli as tomllib

from grader.messages import catalogue
from grader.messages.errors import GraderError
from grader.results import percent
from grader.results.release import EVERYTHING, POLICIES, Policy

CONFIG_NAMES = ("grader.toml", "pyproject.toml")
KEYS = ("exercises", "files", "threshold", "timeout", "lang", "pages", "exercise_folders", "before_release")
DEFAULT_PAGES = "grader-pages"
DEFAULT_TIMEOUT = 60.0
_EXERCISE_ID = re.compile(r"[\w.-]+")  # as `grade list` shows them; no comma, space or line break


class ConfigError(GraderError):
    """The configuration cannot be used, or names nothing to grade: `grade ci` exits 2."""


@dataclass(frozen=True)
class Config:
    path: Path  # the file it was read from
    root: Path  # the course repository: the folder holding that file; globs and `pages` start here
    files: tuple[str, ...]
    exercises: str = "all"  # as `grade EXERCISE` takes it: an id, ids joined by commas, or "all"
    threshold: float = 100.0
    timeout: float = DEFAULT_TIMEOUT
    lang: str | None = None
    pages: Path = Path(DEFAULT_PAGES)  # already joined to root when relative
    exercise_folders: tuple[Path, ...] = ()  # joined to root
    before_release: Policy = EVERYTHING  # what every output shows (grader.results.release)


def find_config(explicit: Path | None, cwd: Path = Path(".")) -> Path:
    """`--config PATH`, else grader.toml in `cwd`, else pyproject.toml in `cwd` (as `cwd` is written, so
    the files it leads to are shown as relative paths)."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError("ci.config.missing", path=str(explicit))
        return explicit
    for name in CONFIG_NAMES:
        candidate = cwd / name
        if candidate.is_file():
            return candidate
    raise ConfigError("ci.config.none", folder=str(cwd.resolve()))


def load_config(path: Path) -> Config:
    """Read and check the configuration; ConfigError names the first thing wrong."""
    shown = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise ConfigError("ci.config.unreadable", path=shown, error=exc.strerror or str(exc)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError("ci.config.unreadable", path=shown, error=str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("ci.config.bad_toml", path=shown, error=str(exc)) from None
    return parse(_table(data, path), path)


def _table(data: dict[str, Any], path: Path) -> dict[str, Any]:
    tool = data.get("tool")
    grader_table = tool.get("grader") if isinstance(tool, dict) else None
    if path.name == "pyproject.toml" or "tool" in data:
        if not isinstance(grader_table, dict):
            raise ConfigError("ci.config.no_table", path=str(path))
        if path.name != "pyproject.toml":  # grader.toml: [tool.grader] or top level, not both
            for key in data:
                if key != "tool":
                    raise _unknown_key(str(path), key)
            for key in tool or {}:
                if key != "grader":
                    raise _unknown_key(str(path), f"tool.{key}")
        return grader_table
    return data


def _unknown_key(path: str, key: str) -> ConfigError:
    return ConfigError("ci.config.unknown_key", path=path, name=key, keys=", ".join(KEYS))


def parse(table: Mapping[str, Any], path: Path) -> Config:
    """The checked configuration of one `[tool.grader]` table read from `path`."""
    shown = str(path)
    for key in table:
        if key not in KEYS:
            raise _unknown_key(shown, key)
    root = path.parent
    files = table.get("files")
    if files is None:
        raise ConfigError("ci.config.no_files", path=shown)
    if not (isinstance(files, list) and files and all(isinstance(f, str) and f.strip() for f in files)):
        raise ConfigError("ci.config.bad_files", path=shown, value=_shown(files))
    for pattern in files:
        if not _inside(pattern):
            raise ConfigError("ci.config.bad_glob", path=shown, pattern=pattern)
    exercises = table.get("exercises", "all")
    if exercises == "all":
        spec = "all"
    elif (isinstance(exercises, list) and exercises
          and all(isinstance(e, str) and _EXERCISE_ID.fullmatch(e) for e in exercises)):
        spec = ",".join(dict.fromkeys(exercises))
    else:
        raise ConfigError("ci.config.bad_exercises", path=shown, value=_shown(exercises))
    threshold = table.get("threshold", 100.0)
    if not _number(threshold) or not 0 <= threshold <= 100:
        raise ConfigError("ci.config.bad_threshold", path=shown, value=_shown(threshold))
    timeout = table.get("timeout", DEFAULT_TIMEOUT)
    if not _number(timeout) or not 1 <= timeout < math.inf:
        raise ConfigError("ci.config.bad_timeout", path=shown, value=_shown(timeout))
    lang = table.get("lang")
    if lang is not None and lang not in catalogue.LANGS:
        raise ConfigError("ci.config.bad_lang", path=shown, value=_shown(lang), choices=", ".join(catalogue.LANGS))
    pages = table.get("pages", DEFAULT_PAGES)
    if not isinstance(pages, str) or not pages.strip():
        raise ConfigError("ci.config.bad_pages", path=shown, value=_shown(pages))
    folders = table.get("exercise_folders", [])
    if not (isinstance(folders, list) and all(isinstance(f, str) and f.strip() and _inside(f) for f in folders)):
        raise ConfigError("ci.config.bad_exercise_folders", path=shown, value=_shown(folders))
    policy = next((p for p in POLICIES if p == table.get("before_release", EVERYTHING)), None)
    if policy is None:
        raise ConfigError("ci.config.bad_before_release", path=shown, value=_shown(table["before_release"]),
                          choices=", ".join(POLICIES))
    return Config(path=path, root=root, files=tuple(files), exercises=spec, threshold=float(threshold),
                  timeout=float(timeout), lang=lang, pages=root / pages,
                  exercise_folders=tuple(root / f for f in folders), before_release=policy)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value: object) -> str:
    """A configuration value as the message quotes it: TOML-like, short."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _inside(pattern: str) -> bool:
    """A glob relative to the repository that cannot climb out of it."""
    pure = PurePosixPath(pattern.replace("\\", "/"))
    if not pure.parts or pure.is_absolute() or ".." in pure.parts:
        return False
    return not pure.parts[0].startswith("~") and ":" not in pure.parts[0]  # ~user, C:


def candidates(config: Config) -> list[Path]:
    """Every file the globs match, in name order: regular files only (links are not followed), and never
    inside a folder whose name starts with a dot (.git, .venv, .ipynb_checkpoints)."""
    found: dict[Path, Path] = {}
    for pattern in config.files:
        for path in config.root.glob(pattern.replace("\\", "/")):
            inside = path.relative_to(config.root).parts
            if any(part.startswith(".") for part in inside):
                continue
            if path.is_symlink() or not path.is_file():
                continue
            found.setdefault(path.resolve(), path)
    return sorted(found.values(), key=lambda p: (p.name, str(p)))


def matching(config: Config) -> list[Path]:
    """The files to grade together; ConfigError when the globs match nothing or two share a name."""
    files = candidates(config)
    if not files:
        raise ConfigError("ci.config.no_match", globs=", ".join(config.files), root=str(config.root.resolve()))
    _distinct(files)
    return files


def select(config: Config, given: Sequence[Path]) -> list[Path]:
    """Of the files named on the command line (pre-commit passes the changed ones), those the globs
    match, as they were named; empty when none is. `grade ci` grades every matching file when one of
    them is (`matching`), as CI does, so this only decides whether there is anything to grade."""
    wanted = {path.resolve() for path in candidates(config)}
    chosen: dict[Path, Path] = {}
    for path in given:
        try:
            resolved = path.resolve()
        except OSError:
            continue
        if resolved in wanted:
            chosen.setdefault(resolved, path)
    files = sorted(chosen.values(), key=lambda p: (p.name, str(p)))
    _distinct(files)
    return files


def _distinct(files: Sequence[Path]) -> None:
    """Files graded together sit side by side in one scratch folder, so two of one name cannot."""
    seen: dict[str, Path] = {}
    for path in files:
        if path.name in seen:
            raise ConfigError("ci.config.same_name", first=str(seen[path.name]), second=str(path))
        seen[path.name] = path


def passed(score: float, max_score: float, threshold: float) -> bool:
    """score/max*100 >= threshold, compared without division so that 21/28 meets 75 exactly."""
    if max_score <= 0:
        return True
    return score * 100.0 >= threshold * max_score - 1e-9 * max_score


def shown_percent(value: float) -> str:
    return f"{round(value, 2):g}"


def github_outputs(score: float, max_score: float, threshold: float, pages: Path) -> str:
    """Lines for $GITHUB_OUTPUT (the action's `score`, `passed` and `pages` outputs)."""
    lines = {
        "score": shown_percent(percent(score, max_score)),
        "points": f"{score:g}",
        "max-points": f"{max_score:g}",
        "passed": "true" if passed(score, max_score, threshold) else "false",
        "pages": _relative(pages),
    }
    return "".join(f"{key}={value}\n" for key, value in lines.items() if "\n" not in value and "\r" not in value)


def annotation_root(config: Config) -> Path:
    """What annotation paths are relative to: GitHub resolves them against the checkout
    ($GITHUB_WORKSPACE), so the course repository's root unless it sits deeper inside the checkout."""
    root = config.root.resolve()
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if workspace:
        base = Path(workspace).resolve()
        if root == base or base in root.parents:
            return base
    return root


def _relative(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path.resolve())
