"""A student's ``answers.yaml``, read safely: the quiz's answers (grader/grading/engine.py), and
whether a folder's answers file holds work at all (grader/grading/graded_work.py).

A broken file costs the quiz only: :func:`read_answers_yaml` returns the problem as a
message naming the file and line. The YAML is read with the safe loader, without aliases
(a student file never expands into a bomb) and with bounded nesting and size.
"""

from __future__ import annotations

import re
from functools import lru_cache

from grader.report.escaping import plain
from grader.base.i18n import Message

MAX_ANSWERS_BYTES = 256 * 1024


def read_answers_yaml(path, kept_parse=None):
    """Parse answers.yaml safely; a broken file costs the quiz only. ``kept_parse(data, parse, kind)``:
    the parse kept between runs (grader/course/cache.py ``cached_parse``), for a command that grades
    one student's work again and again (``grade check``): a run that finds it never imports yaml."""
    name = path.name
    try:
        data = path.read_bytes()
    except OSError as exc:
        return {}, Message("err.answers_yaml", file=name, line="?", problem=str(exc))
    if len(data) > MAX_ANSWERS_BYTES:
        return {}, Message("err.answers_yaml", file=name, line="-", problem="file too large")
    try:
        loaded = (kept_parse(data, lambda: _parse(data, name), "answers") if kept_parse is not None
                  else _parse(data, name))
    except _Broken as broken:
        return {}, broken.message
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        return {}, Message("err.answers_not_dict", got=type(loaded).__name__)
    return clean_strings(loaded), None


class _Broken(Exception):
    """A file that does not parse: the message that says where and why."""

    def __init__(self, message: Message):
        super().__init__(message.key)
        self.message = message


def _parse(data: bytes, name: str):
    import yaml   # here: a check of exercises alone never imports it (13 ms)

    try:
        return load_answers(data.decode("utf-8-sig"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else "?"
        if str(exc.problem or "").startswith("found unknown escape character") and mark:
            # "\\h_{t-1}" between double quotes: say which backslash, and how to write it instead
            text = data.decode("utf-8-sig", "replace").splitlines()[mark.line:mark.line + 1] or [""]
            bad = NOT_AN_ESCAPE.search(text[0])
            raise _Broken(Message("err.answers_yaml_escape", file=name, line=line,
                                  escape=plain(bad.group(0) if bad else "\\", 10))) from None
        raise _Broken(Message("err.answers_yaml", file=name, line=line,
                              problem=str(exc.problem or exc.context))) from None
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError, ValueError, MemoryError) as exc:
        raise _Broken(Message("err.answers_yaml", file=name, line="?", problem=type(exc).__name__)) from None


def clean_strings(value, depth: int = 0):
    """Answers as valid UTF-8 text (YAML's "\\ud800" escapes give lone surrogates)."""
    if depth > 50:
        return None
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {clean_strings(k, depth + 1): clean_strings(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_strings(v, depth + 1) for v in value]
    return value


MAX_ANSWERS_DEPTH = 64
# A backslash YAML's double quotes do not take: what "found unknown escape character" is about.
NOT_AN_ESCAPE = re.compile(r'\\[^0abt\tnvfre "/\\N_LPxuU]')


def load_answers(text: str):
    """YAML with the safe loader, no aliases (a student file never expands into a bomb) and
    bounded nesting. With libyaml, a first pass over the events (iterative, in C) checks
    both and the document is then loaded in C too; pure Python is 20x slower."""
    import yaml

    if not getattr(yaml, "__with_libyaml__", False):
        return yaml.load(text, Loader=_answers_loader())  # noqa: S506 -- SafeLoader subclass
    depth = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.AliasEvent):
            raise yaml.constructor.ConstructorError(None, None, "aliases (*name) are not allowed", event.start_mark)
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_ANSWERS_DEPTH:
                raise yaml.constructor.ConstructorError(None, None, "nested too deeply", event.start_mark)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
    return yaml.load(text, Loader=yaml.CSafeLoader)  # noqa: S506 -- the safe loader


@lru_cache(maxsize=1)
def _answers_loader():
    import yaml

    class AnswersLoader(yaml.SafeLoader):
        """SafeLoader without aliases: a student file never expands into a bomb."""

        def compose_node(self, parent, index):
            if self.check_event(yaml.events.AliasEvent):
                event = self.peek_event()
                raise yaml.constructor.ConstructorError(None, None, "aliases (*name) are not allowed",
                                                        event.start_mark)
            return super().compose_node(parent, index)

    return AnswersLoader
