"""What an equation question means: its symbols, their shapes, its functions.

A question of format ``equation`` carries an ``equation:`` mapping in the
course's YAML (docs/authoring.md, "Equation questions")::

    equation:
      result: y                     # what the equation computes (its left-hand side)
      size: m                       # the result's size; leave out for a scalar result
      previous: y_{k-1}             # named when an answer uses the result on the right
      result_aliases: [y_k]
      other_sides:                  # another left-hand side, and what names then stand for
        y_{k+1}: {y_k: y_{k-1}}
      symbols:
        y_{k-1}: {role: vector, size: m}
        x: {role: vector, size: n, aliases: [x_k]}
        A: {role: matrix, from: n, to: m, aliases: [W]}
        c: {role: bias, size: m, parts: [[c_1, c_in], [c, c_2]]}
      ambiguous: [M]                # names books use for several things
      functions: {relu: [ReLU]}     # extra spellings of grader/quiz/equation_functions.py
      conventions: [row, column, transposed]

Roles say how a symbol is laid out under each convention: a ``vector`` is a
row ``(B, size)`` or a column ``(size,)``/``(size, 1)``; a ``bias`` is added
to vectors, ``(size,)`` or a column; a ``matrix`` maps ``from`` to ``to``,
``(from, to)`` for row vectors and ``(to, from)`` for column vectors or the
``transposed`` (PyTorch) form; a ``scalar`` is a number. A bias with
``parts`` may be written as the sum of one name from each part.

The reference expression is not here: it is the answer key's answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.quiz.equation_functions import KNOWN, spelling_table
from grader.quiz.equation_text import canon

ROLES = ("vector", "bias", "matrix", "scalar")
CONVENTIONS = ("row", "column", "transposed")
KEYS = {"result", "size", "previous", "result_aliases", "other_sides", "symbols", "ambiguous",
        "functions", "conventions"}
SYMBOL_KEYS = {"role", "size", "from", "to", "aliases", "parts", "positive"}


class SpecError(ValueError):
    """An equation mapping a course cannot use; the text names what is wrong."""


@dataclass(frozen=True)
class Symbol:
    name: str                       # as the course writes it, for messages
    key: str                        # canonical form, the key in trial environments
    role: str
    size: str | None = None         # vector, bias
    source: str | None = None       # matrix: maps from ...
    target: str | None = None       # ... to
    positive: bool = False          # drawn from (0.5, 2): for sqrt, log, division
    parts: tuple[frozenset, ...] = ()


@dataclass(frozen=True)
class EquationSpec:
    result: Symbol
    previous: str | None
    symbols: dict                   # key -> Symbol (the result included)
    names: dict                     # canonical spelling -> symbol key
    part_names: dict                # canonical spelling -> (symbol key, part index)
    sides: dict                     # canonical left-hand side -> {spelling: symbol key}
    ambiguous: frozenset
    functions: dict                 # canonical spelling -> function name
    conventions: tuple
    sizes: tuple                    # size symbols in order of appearance

    @property
    def lexicon(self) -> frozenset:
        """Every spelling that is a name (not a function) in this question."""
        return frozenset(self.names) | frozenset(self.part_names) | frozenset(self.sides) | self.ambiguous

    def display(self, key: str) -> str:
        return self.symbols[key].name


def _names(value, what) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) for v in value):
        raise SpecError(f"{what} must be a list of names")
    return [str(v) for v in value]


def _size(value, what) -> str:
    if not isinstance(value, (str, int)) or not str(value).strip():
        raise SpecError(f"{what} must be a size symbol such as d or H")
    return str(value)


def _symbol(name: str, entry) -> tuple[Symbol, list[str]]:
    if not isinstance(entry, dict):
        raise SpecError(f"symbol {name!r} must be a mapping with a role")
    unknown = set(entry) - SYMBOL_KEYS
    if unknown:
        raise SpecError(f"symbol {name!r}: unknown key {sorted(unknown)[0]!r} "
                        f"(known: {', '.join(sorted(SYMBOL_KEYS))})")
    role = entry.get("role")
    if role not in ROLES:
        raise SpecError(f"symbol {name!r}: role must be one of {', '.join(ROLES)}, not {role!r}")
    size = source = target = None
    if role in ("vector", "bias"):
        size = _size(entry.get("size"), f"symbol {name!r}: size")
    elif role == "matrix":
        source = _size(entry.get("from"), f"symbol {name!r}: from")
        target = _size(entry.get("to"), f"symbol {name!r}: to")
    parts = entry.get("parts") or []
    if parts and (role != "bias" or not isinstance(parts, list) or len(parts) < 2):
        raise SpecError(f"symbol {name!r}: parts is for a bias, a list of two or more lists of names")
    part_sets = tuple(frozenset(canon(p) for p in _names(part, f"symbol {name!r}: a part"))
                      for part in parts)
    symbol = Symbol(name=name, key=canon(name), role=role, size=size, source=source, target=target,
                    positive=bool(entry.get("positive", False)), parts=part_sets)
    return symbol, _names(entry.get("aliases"), f"symbol {name!r}: aliases")


def compile_spec(mapping) -> EquationSpec:
    """Check and compile a question's ``equation:`` mapping; raises SpecError."""
    if not isinstance(mapping, dict):
        raise SpecError("an equation question needs an 'equation:' mapping (result, symbols, ...)")
    unknown = set(mapping) - KEYS
    if unknown:
        raise SpecError(f"unknown key {sorted(unknown)[0]!r} in 'equation:' (known: {', '.join(sorted(KEYS))})")
    result_name = mapping.get("result")
    if not isinstance(result_name, str) or not result_name.strip():
        raise SpecError("'equation:' needs a result, the name its left-hand side computes")
    size = mapping.get("size")
    result = Symbol(name=result_name, key=canon(result_name), role="vector" if size is not None else "scalar",
                    size=_size(size, "size") if size is not None else None)

    symbols = {result.key: result}
    names = {result.key: result.key}
    part_names = {}

    def claim(spelling: str, key: str, owner: str):
        c = canon(spelling)
        if names.get(c, key) != key or c in part_names:
            raise SpecError(f"the name {spelling!r} ({owner}) is also used for {symbols[names.get(c, key)].name!r}")
        names[c] = key

    entries = mapping.get("symbols")
    if not isinstance(entries, dict) or not entries:
        raise SpecError("'equation:' needs symbols, a mapping from each name to its role and size")
    for name, entry in entries.items():
        symbol, aliases = _symbol(str(name), entry)
        if symbol.key in symbols:
            raise SpecError(f"symbol {name!r} is declared twice")
        symbols[symbol.key] = symbol
        for spelling in [symbol.name, *aliases]:
            claim(spelling, symbol.key, f"symbol {name!r}")
        for index, part in enumerate(symbol.parts):
            for spelling in part:
                part_names[spelling] = (symbol.key, index)
    result_aliases = _names(mapping.get("result_aliases"), "result_aliases")
    for spelling in result_aliases:
        claim(spelling, result.key, "result")

    previous = mapping.get("previous")
    if previous is not None and canon(str(previous)) not in names:
        raise SpecError(f"previous {previous!r} is not one of the symbols")

    sides = {result.key: {}}
    for side, renames in (mapping.get("other_sides") or {}).items():
        renames = renames or {}
        if not isinstance(renames, dict):
            raise SpecError(f"other_sides {side!r}: a mapping from a name to the symbol it stands for")
        table = {}
        for spelling, meant in renames.items():
            if canon(str(meant)) not in names:
                raise SpecError(f"other_sides {side!r}: {meant!r} is not one of the symbols")
            table[canon(str(spelling))] = names[canon(str(meant))]
        sides[canon(str(side))] = table
    for spelling in result_aliases:
        sides.setdefault(canon(spelling), {})

    extra = {}
    functions = mapping.get("functions") or {}
    if not isinstance(functions, dict):
        raise SpecError("functions must map a function name to its extra spellings, e.g. {tanh: [φ]}")
    for fname, spellings in functions.items():
        if fname not in KNOWN:
            raise SpecError(f"function {fname!r} is not one of {', '.join(KNOWN)}")
        extra[fname] = tuple(canon(s) for s in _names(spellings or [], f"function {fname!r}"))

    has_matrix = any(s.role == "matrix" for s in symbols.values())
    conventions = tuple(_names(mapping.get("conventions"), "conventions")) or (
        CONVENTIONS if has_matrix else ("row", "column"))
    bad = [c for c in conventions if c not in CONVENTIONS]
    if bad:
        raise SpecError(f"convention {bad[0]!r} is not one of {', '.join(CONVENTIONS)}")

    sizes = []
    for s in symbols.values():
        for size in (s.size, s.source, s.target):
            if size is not None and size not in sizes:
                sizes.append(size)

    return EquationSpec(
        result=result, previous=str(previous) if previous is not None else None, symbols=symbols,
        names=names, part_names=part_names, sides=sides,
        ambiguous=frozenset(canon(a) for a in _names(mapping.get("ambiguous"), "ambiguous")),
        functions=spelling_table(extra),
        conventions=conventions, sizes=tuple(sizes))
