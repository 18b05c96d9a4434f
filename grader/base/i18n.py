"""Messages in the student's language.

Every text the grader writes is a key looked up in ``grader/base/locales/<lang>/*.yaml``
(flat mappings, ``str.format`` placeholders): the package's keys, generic ones (comparison,
errors, report chrome). A course's own keys, in its ``exercises/locales/<lang>/*.yaml``, layer
on top: the course loaded last wins where two define one key, so a course can also reword a
package key (its report title, say). Results carry :class:`Message`
objects, not strings, so one graded result can be shown in either language.
"""

from __future__ import annotations

import locale
import os
from functools import lru_cache
from pathlib import Path

import yaml

LANGUAGES = ("en", "zh")
LOCALE_DIR = Path(__file__).parent / "locales"


class Message:
    """A message key and its parameters: ``Message("err.timeout", name="f", seconds=10)``."""

    __slots__ = ("key", "params")

    def __init__(self, key: str, params: dict | None = None, /, **kwargs):
        self.key = key
        self.params = {**(params or {}), **kwargs}

    def __eq__(self, other):
        return isinstance(other, Message) and (self.key, self.params) == (other.key, other.params)

    def __repr__(self):
        return f"Message({self.key!r}, {self.params!r})"

    def render(self, lang: str) -> str:
        return render(self.key, lang, **self.params)


# The courses loaded, the latest last: (their exercises/locales folder, their title per language).
_courses: list[tuple[Path, tuple]] = []


def add_course_messages(folder: Path, title: dict | None = None) -> None:
    """Layer a course's ``locales`` folder over the package's messages (see the module doc);
    ``title`` (per language) names the course in the report title."""
    entry = (Path(folder).resolve(), tuple(sorted((title or {}).items())))
    if _courses and _courses[-1] == entry:
        return
    if entry in _courses:
        _courses.remove(entry)
    _courses.append(entry)
    catalogue.cache_clear()


def _read(folder: Path, lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for path in sorted((folder / lang).glob("*.yaml")):
        with open(path, encoding="utf-8") as fh:
            merged.update(yaml.safe_load(fh) or {})
    return merged


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    merged = _read(LOCALE_DIR, lang)
    for folder, title in _courses:
        title = dict(title)
        if title.get(lang):
            merged["report.title"] = merged.get("report.title_of", "{course}").format(course=title[lang])
        if folder.is_dir():
            merged.update(_read(folder, lang))
    return merged


class _Lenient(dict):
    """Format parameters: a missing one shows as {name} instead of failing."""

    def __missing__(self, key):
        return "{" + key + "}"


def render(key: str, lang: str, /, **params) -> str:
    template = catalogue(lang).get(key) or catalogue("en").get(key)
    if template is None:
        return key if not params else f"{key} {params}"
    localised = {k: (v.render(lang) if isinstance(v, Message) else v) for k, v in params.items()}
    try:
        return template.format_map(_Lenient(localised))
    except (ValueError, IndexError, AttributeError):
        return template


def text(value, lang: str) -> str:
    """A course text: either a plain string or a mapping {en: ..., zh: ...}."""
    if isinstance(value, dict):
        return value.get(lang) or value.get("en") or next(iter(value.values()), "")
    return "" if value is None else str(value)


def display_width(value: str) -> int:
    """The terminal columns ``value`` takes, as rich measures them (``rich.cells.cell_len``): East
    Asian wide and full-width characters (Chinese text, its punctuation) take two, combining and
    enclosing marks, zero-width characters and Thai vowel marks none, an emoji joined into one
    (a family) two; so columns of either language line up (issue 41)."""
    from rich.cells import cell_len   # 1 ms to import: only the commands that print columns pay it

    return cell_len(value)


def pad(value: str, width: int, right: bool = False) -> str:
    """``value`` padded with spaces to ``width`` terminal columns (see :func:`display_width`)."""
    gap = " " * max(0, width - display_width(value))
    return gap + value if right else value + gap


def default_language() -> str:
    """zh when the locale is Chinese, else en."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    try:
        code = locale.getlocale()[0] or ""
    except ValueError:
        code = ""
    return "zh" if code.lower().startswith("zh") else "en"
