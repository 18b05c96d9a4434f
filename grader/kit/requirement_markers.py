"""Requirements and their environment markers (PEP 508), read with ``packaging`` as pip reads
them, and an extra taken out of a marker: what the student wheel needs to make the instructor's
``test`` extra's pytest a plain requirement (grader/kit/student_wheel.py: requirements).

``pytest>=8.0; extra == "test" and python_version >= "3.10"`` asked for with the ``test`` extra is
``pytest>=8.0; python_version >= "3.10"``: each comparison on ``extra`` is decided by packaging
itself (names normalised as pip compares them), the rest of the marker kept as it was, ``and``
binding closer than ``or``. packaging has no public way to rewrite a marker: its parsed form,
``Marker._markers`` (a list of (left, op, right) tuples, ``"and"``/``"or"`` and nested lists, the
same from packaging 22 to 26), is read here, and anything else in it stops the release with one line.
"""

from __future__ import annotations

import importlib.metadata

from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from grader.base.errors import CourseError


class UnreadableMarker(CourseError):
    """A marker in a form this module does not know (bad input, exit code 2)."""


def parsed_requirement(line: str) -> Requirement | None:
    """A Requires-Dist line read by packaging; None for one it cannot read (copied as it is)."""
    try:
        return Requirement(line)
    except InvalidRequirement:
        return None


# The node types of a parsed marker, taken from a marker parsed here, not imported from
# packaging's private modules.
_VARIABLE, _OP, _VALUE = (type(node) for node in Marker('extra == "x"')._markers[0])


def marker_tree(marker: Marker) -> list:
    tree = getattr(marker, "_markers", None)
    if not isinstance(tree, list):
        raise UnreadableMarker(f"this packaging ({packaging_version()}) keeps markers in a form the student "
                               f"wheel cannot read: {marker}")
    return tree


def packaging_version() -> str:
    try:
        return importlib.metadata.version("packaging")
    except importlib.metadata.PackageNotFoundError:
        return "unknown version"


def marker_extras(marker: Marker | None) -> list[str]:
    """The extras a marker names (``extra == "test"``: ``test``), in order, normalised as pip compares them."""
    if marker is None:
        return []
    names = []

    def walk(tree):
        for item in tree:
            if isinstance(item, list):
                walk(item)
            elif isinstance(item, tuple) and _names_extra(item):
                value = item[2] if isinstance(item[0], _VARIABLE) else item[0]
                name = canonicalize_name(str(value.value))
                if name not in names:
                    names.append(name)

    walk(marker_tree(marker))
    return names


def _names_extra(atom: tuple) -> bool:
    return any(isinstance(node, _VARIABLE) and node.value == "extra" for node in atom)


def without_extra(requirement: Requirement, extra: str) -> str | None:
    """``requirement`` as it applies with ``extra`` asked for, the extra gone from its marker: the
    requirement with the rest of the marker, without a marker when nothing else is left, None when
    it does not apply to ``extra``."""
    resolved = resolved_marker(marker_tree(requirement.marker), extra)
    if resolved is False:
        return None
    rest = without_marker(requirement)
    if resolved is True:
        return rest
    return with_marker(requirement, rest, resolved)


def without_marker(requirement: Requirement) -> str:
    """The requirement's name, extras, and version or URL, without its marker."""
    text = requirement.name + (f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else "")
    return text + (f" @ {requirement.url}" if requirement.url else str(requirement.specifier))


def with_marker(requirement: Requirement, rest: str, marker: str) -> str:
    """``rest; marker``, checked to be PEP 508 (a URL ends at a space, so one comes before its ``;``)."""
    text = f"{rest}{' ' if requirement.url else ''}; {marker}"
    Requirement(text)       # raises InvalidRequirement if it is not
    return text


def resolved_marker(tree: list, extra: str) -> bool | str:
    """A marker tree with every comparison on ``extra`` decided (as packaging decides it, for
    ``extra`` asked for): True, False, or the marker text that is left. ``and`` binds closer
    than ``or``, as in PEP 508; a group keeps its parentheses only where ``and`` joins an ``or``."""
    resolved = _resolved(tree, extra)
    return resolved if isinstance(resolved, bool) else resolved[0]


def _resolved(tree: list, extra: str) -> bool | tuple[str, bool]:
    """True, False, or (text, whether the text is an ``or`` at its top)."""
    groups: list[list] = [[]]
    for item in tree:
        if item == "or":
            groups.append([])
        elif item != "and":
            groups[-1].append(item)
    alternatives = []
    for group in groups:
        terms = []
        for item in group:
            term = _resolved_term(item, extra)
            if term is False:
                terms = None
                break
            if term is not True:
                terms.append(term)
        if terms is None:
            continue
        if not terms:
            return True
        if len(terms) == 1:
            alternatives.append(terms[0])
        else:
            alternatives.append((" and ".join(f"({text})" if is_or else text for text, is_or in terms), False))
    if not alternatives:
        return False
    if len(alternatives) == 1:
        return alternatives[0]
    return " or ".join(text for text, _ in alternatives), True


def _resolved_term(item, extra: str) -> bool | tuple[str, bool]:
    if isinstance(item, list):
        return _resolved(item, extra)
    if isinstance(item, tuple) and len(item) == 3:
        if _names_extra(item):
            return Marker(marker_text([item])).evaluate({"extra": extra})
        return marker_text([item]), False
    raise UnreadableMarker(f"a marker part the student wheel cannot read: {item!r}")


def marker_text(tree: list, quote: str = '"') -> str:
    """A marker tree as PEP 508 text, values in ``quote`` (the other quote for a value holding it)."""
    parts = []
    for item in tree:
        if isinstance(item, list):
            parts.append(f"({marker_text(item, quote)})")
        elif isinstance(item, tuple):
            parts.append(" ".join(_node_text(node, quote) for node in item))
        else:
            parts.append(str(item))
    return " ".join(parts)


def _node_text(node, quote: str) -> str:
    if isinstance(node, _VALUE):
        value = str(node.value)
        mark = quote if quote not in value else ("'" if quote == '"' else '"')
        return f"{mark}{value}{mark}"
    return str(node.value)
