"""Inputs described as a series of choices, for the counterexample search.

A course describes the inputs of a function with a *builder*: a function of
``draw`` that asks for integers, values from a list, booleans and lists of those,
written like a hypothesis ``@composite`` (see grader/suite/inputs.py). Every
choice has a simplest option (index 0: the smallest integer, the first value).
The same builder is then

  * laid out as a **ladder** (:func:`ladder`): the case with every choice at its
    simplest, the cases one choice away from it, and a few seeded random ones,
    smallest first. Deterministic and cheap (microseconds a case, against ~7 ms a
    case drawn by hypothesis), so the ladder of a function is built once per run
    and sent to the student's code in one request;
  * shrunk (:func:`simpler`): the cases one step simpler than a failing one, and
    (:func:`merge`) all the steps that still failed at once;
  * drawn by hypothesis (:func:`drawn`), once per run, where the ladder finds
    nothing: a second ladder of hypothesis's cases, each with its choices, so it
    goes to the student's code in one request and is shrunk like the first.

Only the standard library, numpy and hypothesis (lazily, for the drawn cases).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

RANDOM_RUNGS = 24          # seeded random cases at the top of a ladder
LADDER_SIZE = 96           # cases in a ladder, at most
RANDOM_SEED = 20261201
DRAWN_RUNGS = 60           # cases hypothesis draws, for the functions the ladder cannot fault


# ---------------------------------------------------------------- choices

class Choice:
    """One decision of a builder; option 0 is the simplest."""

    options = 1

    def value(self, index: int):
        raise NotImplementedError


@dataclass(frozen=True)
class integers(Choice):   # noqa: N801 -- reads like hypothesis.strategies.integers
    lo: int
    hi: int

    @property
    def options(self):
        return self.hi - self.lo + 1

    def value(self, index):
        return self.lo + index


@dataclass(frozen=True)
class sampled_from(Choice):   # noqa: N801
    values: tuple

    def __init__(self, values):
        object.__setattr__(self, "values", tuple(values))

    @property
    def options(self):
        return len(self.values)

    def value(self, index):
        return self.values[index]


def booleans() -> sampled_from:
    return sampled_from((False, True))


@dataclass(frozen=True)
class lists:   # noqa: N801
    element: Choice
    min_size: int = 0
    max_size: int = 4


@dataclass(frozen=True)
class Builder:
    """A course's builder with its arguments; ``draw(other_builder())`` nests one in another."""

    function: object
    args: tuple = ()


def builder(function):
    """Decorator: ``@builder def case(draw): ...``; ``case()`` is then a Builder."""
    def make(*args):
        return Builder(function, args)
    make.__name__ = function.__name__
    make.__doc__ = function.__doc__
    return make


# ---------------------------------------------------------------- replaying choices

@dataclass
class Rung:
    """One case of a ladder: the value built, and the choices (index, options) it took."""

    case: object
    choices: tuple

    @property
    def indexes(self) -> tuple:
        return tuple(i for i, _ in self.choices)


class _Replay:
    """A ``draw`` that takes each choice from ``pick(position, options)``."""

    def __init__(self, pick):
        self.pick, self.choices = pick, []

    def draw(self, choice):
        if isinstance(choice, Builder):
            return choice.function(self.draw, *choice.args)
        if isinstance(choice, lists):
            n = self.draw(integers(choice.min_size, choice.max_size))
            return [self.draw(choice.element) for _ in range(n)]
        options = max(int(choice.options), 1)
        index = min(max(int(self.pick(len(self.choices), options)), 0), options - 1)
        self.choices.append((index, options))
        return choice.value(index)


def build(spec: Builder, indexes=()) -> Rung:
    """The case the choice indexes give (choices past their end take option 0)."""
    indexes = tuple(indexes)
    replay = _Replay(lambda i, _: indexes[i] if i < len(indexes) else 0)
    case = spec.function(replay.draw, *spec.args)
    return Rung(case, tuple(replay.choices))


def size(rung: Rung) -> tuple:
    """Smaller is simpler: fewer values, fewer choices off their simplest, smaller indexes."""
    indexes = rung.indexes
    return (_count(rung.case), sum(1 for i in indexes if i), sum(indexes), indexes)


def _count(value) -> int:
    if isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, (list, tuple)):
        return sum(_count(v) for v in value)
    if isinstance(value, dict):
        return sum(_count(v) for v in value.values())
    args, kwargs = getattr(value, "args", None), getattr(value, "kwargs", None)
    if isinstance(args, tuple) and isinstance(kwargs, dict):   # a Case
        return _count(args) + _count(kwargs)
    return 1


# ---------------------------------------------------------------- the ladder, and shrinking

def ladder(spec: Builder, key, limit: int = LADDER_SIZE, random_rungs: int = RANDOM_RUNGS) -> list[Rung]:
    """The builder's cases, smallest first: the simplest case, every case one choice away
    from it, then ``random_rungs`` seeded random ones (which find the mistakes that need
    several choices off their simplest; :func:`simpler` then shrinks what they find).
    ``key(case)``: a content key, so no case comes twice."""
    seen, near = set(), []

    def add(rung, into):
        k = key(rung.case)
        if k not in seen:
            seen.add(k)
            into.append(rung)

    simplest = build(spec)
    add(simplest, near)
    for position, (_, options) in enumerate(simplest.choices):
        for option in range(1, options):
            add(build(spec, (0,) * position + (option,)), near)
    near.sort(key=size)
    rungs = near[:max(limit - random_rungs, 1)]
    rng = random.Random(RANDOM_SEED)
    far = []
    for _ in range(random_rungs * 4):
        if len(far) >= random_rungs:
            break
        replay = _Replay(lambda _, options: rng.randrange(options))
        add(Rung(spec.function(replay.draw, *spec.args), tuple(replay.choices)), far)
    return rungs + sorted(far, key=size)


def drawn(spec: Builder, key, count: int = DRAWN_RUNGS) -> list[Rung]:
    """Up to ``count`` cases hypothesis draws from the builder (derandomised: the same every
    run), each with the choices it took, so :func:`simpler` shrinks them like ladder rungs.
    Smallest first. Hypothesis picks each choice's index, which it biases towards the ends
    of each range and towards repeats: cases a seeded uniform draw rarely meets.
    ``key(case)``: a content key, so no case comes twice."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    @st.composite
    def rung(draw):
        replay = _Replay(lambda _, options: draw(st.integers(0, options - 1)))
        return Rung(spec.function(replay.draw, *spec.args), tuple(replay.choices))

    found, seen = [], set()

    def record(candidate: Rung) -> bool:
        k = key(candidate.case)
        if k not in seen:
            seen.add(k)
            found.append(candidate)
        return False   # never "found": hypothesis only generates

    config = settings(max_examples=count, deadline=None, database=None, derandomize=True,
                      phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    try:
        find(rung(), record, settings=config)
    except (NoSuchExample, Unsatisfiable):
        pass
    return sorted(found[:count], key=size)


def simpler(spec: Builder, rung: Rung) -> list[Rung]:
    """The cases simpler than ``rung`` by one move: a run of its choices (a half, a quarter...
    down to one) set to their simplest option, or one choice one step down. Smallest first."""
    indexes = list(rung.indexes)
    off = [p for p, i in enumerate(indexes) if i]
    moves = []
    width = len(off)
    while width >= 1:   # runs of width len/1, len/2, ... 1, as delta debugging does
        for start in range(0, len(off), width):
            moves.append({p: 0 for p in off[start:start + width]})
        width //= 2
    moves += [{p: indexes[p] - 1} for p in off if indexes[p] > 1]
    found, seen = [], set()
    for move in moves:
        candidate = tuple(move.get(p, i) for p, i in enumerate(indexes))
        if candidate in seen:
            continue
        seen.add(candidate)
        built = build(spec, candidate)
        if size(built) < size(rung):
            found.append(built)
    return sorted(found, key=size)


def merge(spec: Builder, rung: Rung, others: list[Rung]) -> Rung | None:
    """The case with each choice at its simplest among ``rung`` (the smallest case that failed
    in a shrinking round) and ``others`` (the round's other failing cases), or None if that is
    no simpler than ``rung``. Tried with the next round's candidates: where the failing moves
    combine, the shrink takes them all in one round instead of one a round. Cases whose choices
    differ in structure may combine into an unrelated case: it is one candidate more, no worse."""
    if not others:
        return None
    cases = (rung, *others)
    width = max(len(r.indexes) for r in cases)
    indexes = tuple(min(r.indexes[p] if p < len(r.indexes) else 0 for r in cases) for p in range(width))
    candidate = build(spec, indexes)
    return candidate if size(candidate) < size(rung) else None
