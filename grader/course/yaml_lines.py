"""A course's YAML files read with the line each mapping starts on (so a course error names
file and line), parsed by libyaml where it is installed, the parse kept between runs
(grader/course/cache.py)."""

from __future__ import annotations

from pathlib import Path

import yaml

from grader.course.cache import LineDict, cached_parse
from grader.base.errors import CourseError


class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):   # libyaml when there: 10x faster
    def construct_mapping(self, node, deep=False):
        mapping = LineDict(super().construct_mapping(node, deep=deep))
        mapping.line = node.start_mark.line + 1
        return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _LineLoader.construct_mapping)


def load_yaml(path: Path):
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        # kept between runs as plain JSON, keyed by the file's bytes (grader/course/cache.py)
        return cached_parse(data, lambda: yaml.load(data.decode("utf-8"), Loader=_LineLoader))  # noqa: S506
    except FileNotFoundError:
        raise CourseError(f"{path}: file not found") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        raise CourseError(f"{path}{line}: malformed YAML: {exc.problem or exc.context}") from None
    except (yaml.YAMLError, UnicodeDecodeError, OSError) as exc:
        raise CourseError(f"{path}: cannot read: {exc}") from None
