"""A course's YAML files read with the line each mapping starts on (so a course error names
file and line), parsed by libyaml where it is installed, the parse kept between runs
(grader/course/cache.py)."""

from __future__ import annotations

from pathlib import Path

from functools import lru_cache

from grader.course.cache import LineDict, cached_parse
from grader.base.errors import CourseError


@lru_cache(maxsize=1)
def _line_loader():
    """The loader, made when a file is first parsed: a run that finds every parse kept never
    imports yaml (30 ms)."""
    import yaml

    class LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):   # libyaml when there: 10x faster
        def construct_mapping(self, node, deep=False):
            mapping = LineDict(super().construct_mapping(node, deep=deep))
            mapping.line = node.start_mark.line + 1
            return mapping

    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, LineLoader.construct_mapping)
    return LineLoader


def load_yaml(path: Path):
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise CourseError(f"{path}: file not found") from None
    except OSError as exc:
        raise CourseError(f"{path}: cannot read: {exc}") from None
    # kept between runs as plain JSON, keyed by the file's bytes (grader/course/cache.py)
    return cached_parse(data, lambda: _parse(path, data))


def _parse(path: Path, data: bytes):
    import yaml

    try:
        return yaml.load(data.decode("utf-8"), Loader=_line_loader())  # noqa: S506
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        raise CourseError(f"{path}{line}: malformed YAML: {exc.problem or exc.context}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise CourseError(f"{path}: cannot read: {exc}") from None
