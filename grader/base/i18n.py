"""Messages in the student's language.

Every text the grader writes is a key looked up in ``grader/base/locales/<lang>/*.yaml``
(flat mappings, ``str.format`` placeholders): the package's keys, generic ones (comparison,
errors, report chrome). A course's own keys, in its ``exercises/locales/<lang>/*.yaml``, layer
on top in that course's :class:`Catalogue` (``Course.messages``): where both define a key the
course's wins, so a course can also reword a package key (its report title, say). Each course
has its own catalogue, passed to the view that renders its results: two courses in one process
never show each other's messages. Results carry :class:`Message` objects, not strings, so one
graded result can be shown in either language.
"""

from __future__ import annotations

import hashlib
import json
import locale
import os
from functools import lru_cache
from pathlib import Path

from grader.base.cache_folder import cache_dir, store_json

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

    def render(self, lang: str, messages: Catalogue | None = None) -> str:
        """The text in ``lang`` from ``messages`` (a course's catalogue; None: the package's)."""
        return (messages or PACKAGE).render(self.key, lang, **self.params)


def _read(folder: Path, lang: str) -> dict[str, str]:
    """The messages of ``folder/lang/*.yaml``, merged; kept in the cache folder as JSON keyed by
    the files' content (parsing them is most of a report's rendering otherwise)."""
    files = [(path.name, path.read_bytes()) for path in sorted((folder / lang).glob("*.yaml"))]
    digest = hashlib.sha256(b"messages-1")
    for name, data in files:
        digest.update(b"%d:%s%d:" % (len(name), name.encode(), len(data)) + data)
    kept = cache_dir()
    path = kept / f"messages-{digest.hexdigest()[:32]}.json" if kept is not None else None
    try:
        merged = json.loads(path.read_bytes()) if path is not None else None
    except (OSError, ValueError):
        merged = None
    if type(merged) is dict:
        return merged
    import yaml   # only when the messages changed (or no cache folder): 30 ms to import

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    merged = {}
    for _, data in files:
        merged.update(yaml.load(data, Loader=loader) or {})
    if path is not None and all(type(k) is str for k in merged):   # JSON keeps text keys only
        store_json(path, merged)
    return merged


class _Lenient(dict):
    """Format parameters: a missing one shows as {name} instead of failing."""

    def __missing__(self, key):
        return "{" + key + "}"


class Catalogue:
    """The messages one course's results are shown with: the package's, then (optionally) one
    course's title (``report.title``) and its ``exercises/locales`` folder over them. Immutable;
    :meth:`of_course` gives a course's, :data:`PACKAGE` the package's alone; two of the same course
    are equal, so their messages are read once (``_table`` is cached by value)."""

    __slots__ = ("folder", "title")

    def __init__(self, folder: Path | None = None, title: tuple = ()):
        self.folder = folder
        self.title = title

    @staticmethod
    def of_course(folder: Path, title: dict | None = None) -> Catalogue:
        """The catalogue of the course whose ``locales`` folder is ``folder`` and whose title
        (per language) is ``title``."""
        return Catalogue(Path(folder).resolve(), tuple(sorted((title or {}).items())))

    def __eq__(self, other):
        return isinstance(other, Catalogue) and (self.folder, self.title) == (other.folder, other.title)

    def __hash__(self):
        return hash((self.folder, self.title))

    def __repr__(self):
        return f"Catalogue({self.folder!r}, {self.title!r})"

    def table(self, lang: str) -> dict[str, str]:
        """Every key and its template in ``lang`` (do not modify: it is shared)."""
        return _table(self.folder, self.title, lang)

    def render(self, key: str, lang: str, /, **params) -> str:
        template = self.table(lang).get(key) or self.table("en").get(key)
        if template is None:
            return key if not params else f"{key} {params}"
        localised = {k: (v.render(lang, self) if isinstance(v, Message) else v) for k, v in params.items()}
        try:
            return template.format_map(_Lenient(localised))
        except (ValueError, IndexError, AttributeError):
            return template


@lru_cache(maxsize=None)
def _table(folder: Path | None, title: tuple, lang: str) -> dict[str, str]:
    merged = _read(LOCALE_DIR, lang)
    title = dict(title)
    if title.get(lang):
        merged["report.title"] = merged.get("report.title_of", "{course}").format(course=title[lang])
    if folder is not None and folder.is_dir():
        merged.update(_read(folder, lang))
    return merged


PACKAGE = Catalogue()   # the package's messages alone (where no course is at hand)


def catalogue(lang: str, messages: Catalogue | None = None) -> dict[str, str]:
    """Every key and its template in ``lang``: ``messages``' (None: the package's)."""
    return (messages or PACKAGE).table(lang)


def render(key: str, lang: str, /, messages: Catalogue | None = None, **params) -> str:
    """``key``'s text in ``lang`` from ``messages`` (a course's catalogue; None: the package's)."""
    return (messages or PACKAGE).render(key, lang, **params)


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
