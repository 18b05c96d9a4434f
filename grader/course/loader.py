"""Loading a course: ``exercises/*.yaml`` plus ``solutions/``.

A course folder holds ``exercises/`` (one YAML file per exercise; ``course.yaml``
with the course's title, exercise order and notebook name; ``stubs/`` with the student
files; ``checks/`` with its Python check modules, see grader/course/code.py; ``locales/``
with its own messages) and ``solutions/`` (``reference/`` with the reference files and the
answer key ``answers.yaml``, ``mistakes/<exercise>/`` with known wrong implementations and
their ``catalogue.yaml``, read when first needed). Malformed content raises :class:`CourseError`
naming the file and line."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.checks.api import Registry
from grader.course.declared_checks import combined_builder, declared_check
from grader.quiz.equation_spec import SpecError, compile_spec
from grader.course.yaml_lines import load_yaml
from grader.base.errors import CourseError
from grader.course.bundled import bundled_course_root, is_kit_folder  # noqa: F401 -- also imported from here
from grader.base.i18n import LANGUAGES, Catalogue

COURSE_FILE = "course.yaml"     # in exercises/: the course's title, order and notebook name
QUIZ_FORMATS = ("bool", "choice", "list", "int", "number", "mapping", "equation")


# A check's hint may differ per way of failing (``hint: {values: {en, zh}, ...}``): each kind
# takes the failure messages listed (grader/base/locales), its top-level en/zh text the rest.
HINT_KINDS = {
    "shape": ("cmp.shape", "cmp.not_array", "cmp.type", "cmp.length", "cmp.keys", "cmp.dtype"),
    "values": ("cmp.values", "cmp.value", "cmp.bool_values", "prop.gradient_fd"),
    "not_finite": ("cmp.array_not_finite", "cmp.not_finite"),
    "raised": ("err.exception", "err.exception_unplaced"),
}


def failure_kind(key: str) -> str | None:
    """The way of failing a message key says (a key of HINT_KINDS), or None."""
    return next((kind for kind, keys in HINT_KINDS.items() if key in keys), None)


@dataclass
class CheckSpec:
    id: str
    points: float
    hidden: bool
    title: dict
    hint: dict
    question: dict | None = None      # quiz only: the question spec from the YAML
    line: int = 0                     # of its entry in the exercise's YAML
    guards: bool = False              # a safety net: no known mistake need fail it (grader/grading/validate.py)
    hints: dict = field(default_factory=dict)   # per way of failing (HINT_KINDS): {kind: {en, zh}}

    def hint_for(self, key: str | None) -> dict:
        """The hint for a failure with message ``key``: its kind's (marked ``kind``: tied to the way
        the check failed, grader/report/view.py shows it only where no known mistake is named), else the
        check's own generic hint."""
        kind = failure_kind(key or "")
        return {**self.hints[kind], "kind": kind, "generic": self.hint} if kind in self.hints else self.hint


@dataclass
class MistakeSpec:
    id: str                  # "<exercise>.<name>"
    exercise: str
    title: dict
    explanation: dict
    hint: dict
    fails: list[str]
    variants: list[Path]     # the wrong implementations; each is appended to the reference file
    # Whether hidden checks' calls may name it too (``hidden_evidence: true``): whether it is named
    # can then tell a student one bit about a hidden input, which the course accepts for it.
    hidden_evidence: bool = False
    # Where the mistake says nothing (``silent:``, grader/grading/diagnose.py): its implementations' choice there is
    # arbitrary, so a student's value there neither counts for nor against it. ``raises``: the calls
    # where an implementation raises (a shape it cannot take); ``rows``: {function: an expression of the
    # call's arguments (by the reference's parameter names) and ``np``, true for the batch rows, axis 0 of
    # every array returned}; ``outputs``: {function: [the parts of its result (index or key) it does not concern]}.
    silent: "Silence" = field(default_factory=lambda: Silence())
    # ``implementations:`` listed: one mistake written several ways, which grade validate checks agree
    # wherever the mistake speaks (``<name>__*.py`` files found by name are forms of it that may differ).
    listed: bool = False
    evidence: object = field(default=None, compare=False)   # set on a named copy: where it shows (diagnose.py)


@dataclass(frozen=True)
class Silence:
    raises: bool = False
    rows: tuple = ()        # ((function, expression), ...)
    outputs: tuple = ()     # ((function, (part, ...)), ...)

    def rows_of(self, func: str) -> str | None:
        return dict(self.rows).get(func) if self.rows else None

    def outputs_of(self, func: str) -> tuple:
        return dict(self.outputs).get(func, ()) if self.outputs else ()

    def concerns(self, func: str) -> bool:
        """Whether some rows or outputs of ``func``'s results are declared silent."""
        return bool(self.rows or self.outputs) and (func in dict(self.rows) or func in dict(self.outputs))


@dataclass
class Exercise:
    id: str
    file: str
    functions: list[str]
    title: dict
    statement: dict
    signatures: list[str]
    timeout: float
    rtol: float
    atol: float
    checks: list[CheckSpec]
    path: Path | None = None
    returns: dict = field(default_factory=dict)   # function -> its results' names (``returns:``)
    mistakes_from: tuple | None = field(default=None, repr=False, compare=False)   # (catalogue folder, suffix)
    _mistakes: list | None = field(default=None, repr=False, compare=False)

    @property
    def mistakes(self) -> list[MistakeSpec]:
        """Read when first asked for (a correct submission never needs them); Course.select reads
        those of the exercises it selects, so a broken catalogue is a course error before grading."""
        if self._mistakes is None:   # an error leaves it None: the same error the next time
            self._mistakes = _load_mistakes(self, *self.mistakes_from) if self.mistakes_from else []
        return self._mistakes

    @mistakes.setter
    def mistakes(self, value: list[MistakeSpec]):
        self._mistakes = list(value)

    @property
    def max_score(self) -> float:
        return sum(c.points for c in self.checks)

    @property
    def is_quiz(self) -> bool:
        return self.file.endswith((".yaml", ".yml"))


@dataclass
class CourseInfo:
    """exercises/course.yaml: what the course says of itself."""

    title: dict                  # {en, zh}: the report's and the kit's title
    notebook: str                # the kit's notebook file name
    order: list[str]             # the exercises graded first, in this order; the others follow by id
    # A notebook runs cell by cell (grader/sandbox/notebook_run.py): each cell's wall clock and a whole run's,
    # in seconds; and the packages graded code may import besides numpy and the standard library,
    # for display only (matplotlib), importable in the sandbox where the grader's environment has them.
    notebook_cell_seconds: float = 10.0
    notebook_seconds: float = 60.0
    display_packages: list[str] = field(default_factory=list)


@dataclass
class Course:
    root: Path
    exercises: dict[str, Exercise]
    info: CourseInfo = None
    registry: Registry = field(default_factory=Registry)   # the course's Python checks

    @property
    def exercises_dir(self) -> Path:
        return self.root / "exercises"

    @property
    def messages(self) -> Catalogue:
        """What its results are shown with: the package's messages, its title, its own (i18n.Catalogue)."""
        return Catalogue.of_course(self.exercises_dir / "locales", self.info.title if self.info else None)

    @property
    def stubs_dir(self) -> Path:
        return self.root / "exercises" / "stubs"

    @property
    def reference_dir(self) -> Path:
        return self.root / "solutions" / "reference"

    @property
    def answer_key_path(self) -> Path:
        return self.reference_dir / "answers.yaml"

    @property
    def kit_dir(self) -> Path:
        """A student kit's grading data (grader/kit/data.py), in place of ``solutions/``."""
        return self.root / "kit"

    @property
    def is_kit(self) -> bool:
        """A course as the student wheel carries it: no reference, no mistakes, no answer key;
        the visible checks are graded from what ``grade release`` recorded."""
        return is_kit_folder(self.root)

    @property
    def max_score(self) -> float:
        return sum(e.max_score for e in self.exercises.values())

    def select(self, only: tuple[str, ...] | list[str] = ()) -> list[Exercise]:
        unknown = [x for x in only if x not in self.exercises]
        if unknown:
            raise CourseError(f"unknown exercise id {unknown[0]!r} (known: {', '.join(self.exercises)})")
        chosen = [e for e in self.exercises.values() if not only or e.id in only]
        for exercise in chosen:
            exercise.mistakes   # a broken catalogue is a course error now, before any grading
        return chosen

    def answer_key(self) -> dict:
        return load_yaml(self.answer_key_path)

    def student_files(self) -> list[str]:
        return list(dict.fromkeys(e.file for e in self.exercises.values()))


class _Reader:
    """Typed access to a YAML mapping that reports file:line on every mistake."""

    def __init__(self, path: Path, data, where: str = ""):
        self.path, self.data, self.where = path, data, where
        if not isinstance(data, dict):
            self.fail(f"expected a mapping{where}")

    def fail(self, problem: str, line: int | None = None):
        line = line or getattr(self.data, "line", 0)
        raise CourseError(f"{self.path}:{line}: {problem}")

    def get(self, key, kind, default=None, required=True):
        if key not in self.data:
            if required and default is None:
                self.fail(f"missing key {key!r}{self.where}")
            return default
        value = self.data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind in (int, float) and isinstance(value, bool)):
            self.fail(f"{key!r}{self.where} must be {getattr(kind, '__name__', kind)}")
        return value

    def texts(self, key, required=True):
        value = self.get(key, dict, required=required, default={} if not required else None)
        if required:
            missing = [lang for lang in LANGUAGES
                       if not isinstance(value.get(lang), str) or not value.get(lang).strip()]
            if missing:
                self.fail(f"{key!r}{self.where} needs a text in {', '.join(missing)}", getattr(value, "line", None))
        return {lang: value.get(lang, "") for lang in LANGUAGES}


def _load_exercise(path: Path, known_checks) -> Exercise:
    r = _Reader(path, load_yaml(path))
    ex_id = r.get("id", str)
    if ex_id != path.stem:
        r.fail(f"id {ex_id!r} does not match the file name {path.name!r}")
    file = r.get("file", str)
    tolerance = r.get("tolerance", dict, default={}, required=False)
    tol = _Reader(path, tolerance, " in tolerance")
    exercise = Exercise(
        id=ex_id, file=file, functions=list(r.get("functions", list, default=[], required=False)),
        title=r.texts("title"), statement=r.texts("statement"),
        signatures=list(r.get("signatures", list, default=[], required=False)),
        timeout=r.get("timeout", float, default=10.0, required=False),
        rtol=tol.get("rtol", float, default=1e-6, required=False),
        atol=tol.get("atol", float, default=1e-9, required=False),
        checks=[], path=path)
    if exercise.timeout <= 0:
        r.fail("timeout must be positive")
    returns = _returns(r, exercise.functions)
    entries = r.get("questions" if exercise.is_quiz else "checks", list)
    declared = {}
    for entry in entries:
        c = _Reader(path, entry, " in a check")
        if exercise.is_quiz:
            key = c.get("key", str)
            fmt = c.get("format", str)
            if fmt not in QUIZ_FORMATS:
                c.fail(f"question {key!r}: format {fmt!r} is not one of {', '.join(QUIZ_FORMATS)}")
            if fmt == "equation":
                try:
                    compile_spec(entry.get("equation"))
                except SpecError as err:
                    c.fail(f"question {key!r}: {err}")
            if "wrong" in entry:
                _wrong_answers(c, key, fmt, entry["wrong"])
            spec = CheckSpec(id=key, points=c.get("points", float, default=1.0, required=False),
                             hidden=bool(c.get("hidden", bool, default=False, required=False)),
                             title=c.texts("question"), hint=c.texts("hint", required=False),
                             question=dict(entry), line=getattr(entry, "line", 0))
        else:
            check_id = c.get("id", str)
            if "kind" in entry:   # declared in the YAML (grader/course/declared_checks.py)
                declared[check_id] = declared_check(
                    ex_id, exercise.functions, entry,
                    lambda problem, line=None, c=c, check_id=check_id: c.fail(f"check {check_id!r}: {problem}", line),
                    returns)
            elif known_checks is not None and check_id not in known_checks.get(ex_id, {}):
                known = ", ".join(known_checks.get(ex_id, {})) or "none"
                c.fail(f"exercise {ex_id!r} has no check {check_id!r} (known: {known})")
            hint, hints = _hints(c, check_id, entry.get("hint"))
            spec = CheckSpec(id=check_id, points=c.get("points", float),
                             hidden=bool(c.get("hidden", bool, default=False, required=False)),
                             title=c.texts("title"), hint=hint, hints=hints, line=getattr(entry, "line", 0),
                             guards=c.get("guards", bool, default=False, required=False))
        if spec.points < 0:
            c.fail(f"check {spec.id!r}: points must not be negative")
        if any(s.id == spec.id for s in exercise.checks):
            c.fail(f"check {spec.id!r} appears twice")
        exercise.checks.append(spec)
    if not exercise.checks:
        r.fail("an exercise needs at least one check")
    exercise.returns = returns
    return exercise, declared


def _returns(r: _Reader, functions: list) -> dict:
    """``returns:``: the names of the functions' results, which every message uses (``[h_t, c_t]``
    names the parts of a tuple, ``h_t`` a single result); a list or a name for the exercise's
    only function, or a mapping from function to those."""
    value = r.data.get("returns")
    if value is None:
        return {}
    line = getattr(value, "line", None)

    def names(item, where):
        if isinstance(item, str) and item.strip():
            return item.strip()
        if isinstance(item, list) and item and all(isinstance(n, str) and n.strip() for n in item):
            return tuple(n.strip() for n in item)
        r.fail(f"returns{where}: give a name, or a list of names (one per part of a tuple result)", line)

    if isinstance(value, dict):
        unknown = [f for f in value if f not in functions]
        if unknown:
            r.fail(f"returns names {unknown[0]!r}, which is not one of the exercise's functions "
                   f"({', '.join(functions) or 'none'})", line)
        return {f: names(v, f" for {f}") for f, v in value.items()}
    if len(functions) != 1:
        r.fail("returns: with several functions, map each to its results' names ({function: [names]})", line)
    return {functions[0]: names(value, "")}


def _hints(c: _Reader, check_id: str, value) -> tuple[dict, dict]:
    """A check's hint ({en, zh}) and its hints per way of failing ({kind: {en, zh}})."""
    if value is None:
        return {lang: "" for lang in LANGUAGES}, {}
    if not isinstance(value, dict):
        c.fail(f"check {check_id!r}: hint must be a mapping of texts ({', '.join(LANGUAGES)}) "
               f"or of ways of failing ({', '.join(HINT_KINDS)}) to texts")
    unknown = [k for k in value if k not in LANGUAGES and k not in HINT_KINDS]
    if unknown:
        c.fail(f"check {check_id!r}: hint has {unknown[0]!r}, which is no language ({', '.join(LANGUAGES)}) "
               f"and no way of failing ({', '.join(HINT_KINDS)})", getattr(value, "line", None))
    hints = {}
    for kind in HINT_KINDS:
        if kind in value:
            texts = value[kind]
            if not isinstance(texts, dict) or any(not isinstance(texts.get(lang), str) or not texts[lang].strip()
                                                  for lang in LANGUAGES):
                c.fail(f"check {check_id!r}: hint {kind!r} needs a text in each of {', '.join(LANGUAGES)}",
                       getattr(texts, "line", None) or getattr(value, "line", None))
            hints[kind] = {lang: texts[lang] for lang in LANGUAGES}
    given = [lang for lang in LANGUAGES if lang in value]
    if given and len(given) != len(LANGUAGES) or any(not isinstance(value.get(lang, ""), str) for lang in given):
        c.fail(f"check {check_id!r}: hint needs a text in each of {', '.join(LANGUAGES)}",
               getattr(value, "line", None))
    return {lang: value.get(lang, "") for lang in LANGUAGES}, hints


QUIZ_WRONG_FORMATS = ("int", "number", "choice")


def _wrong_answers(c: _Reader, key: str, fmt: str, value) -> None:
    """``wrong: {2560: {en, zh}}``: known wrong answers of a question and what each says."""
    line = getattr(value, "line", None)
    if fmt not in QUIZ_WRONG_FORMATS:
        c.fail(f"question {key!r}: wrong answers are for {', '.join(QUIZ_WRONG_FORMATS)} questions, not {fmt}",
               line)
    if not isinstance(value, dict) or not value:
        c.fail(f"question {key!r}: wrong must map each known wrong answer to its explanation {{en, zh}}", line)
    for answer, texts in value.items():
        if isinstance(answer, bool) or (fmt == "choice" and not isinstance(answer, str)) or (
                fmt != "choice" and not isinstance(answer, (int, float))):
            c.fail(f"question {key!r}: wrong answer {answer!r} is no "
                   f"{'letter' if fmt == 'choice' else 'number'}", line)
        if not isinstance(texts, dict) or any(not isinstance(texts.get(lang), str) or not texts[lang].strip()
                                              for lang in LANGUAGES):
            c.fail(f"question {key!r}: the explanation of wrong answer {answer!r} needs a text in each of "
                   f"{', '.join(LANGUAGES)}", getattr(texts, "line", None) or line)


def _load_mistakes(exercise: Exercise, folder: Path, suffix: str = ".py") -> list[MistakeSpec]:
    """``suffix``: ``.py`` for the wrong implementations of solutions/mistakes, ``.rec`` for a
    kit's records of what they returned (grader/course/kit_records.py)."""
    catalogue_path = folder / "catalogue.yaml"
    if not catalogue_path.exists():
        return []
    data = load_yaml(catalogue_path) or {}
    r = _Reader(catalogue_path, data)
    files = sorted(os.listdir(folder))
    mistakes: list[MistakeSpec] = []
    check_ids = {c.id for c in exercise.checks}
    for mistake_id, entry in data.items():
        m = _Reader(catalogue_path, entry, f" in {mistake_id}")
        prefix, _, name = str(mistake_id).partition(".")
        if prefix != exercise.id or not name:
            m.fail(f"mistake id {mistake_id!r} must look like '{exercise.id}.<name>'")
        listed = m.get("implementations", list, default=[], required=False)
        if listed:
            # ``implementations: [a.py, b.py]``: this mistake's files, each written another way
            if not all(isinstance(f, str) and re.fullmatch(r"[\w.-]+\.py", f) for f in listed) or \
                    len(set(listed)) != len(listed):
                m.fail(f"implementations of {mistake_id!r} must be distinct file names ending in .py in {folder.name}/")
            variants = [folder / (f[:-3] + suffix) for f in listed]
            absent = [v.name for v in variants if v.name not in files]
            if absent:
                m.fail(f"implementation {absent[0]} of mistake {mistake_id!r} is not in {folder}")
        else:       # by name: <name>.py and <name>__*.py (the folder listed once: a glob each costs 1 ms)
            variants = [folder / f for f in files if f == f"{name}{suffix}"
                        or (f.startswith(f"{name}__") and f.endswith(suffix))]
        if not variants:
            m.fail(f"no implementation {name}{suffix} for mistake {mistake_id!r}")
        fails = list(m.get("fails", list, default=[], required=False))
        unknown = [f for f in fails if f not in check_ids]
        if unknown:
            m.fail(f"mistake {mistake_id!r} lists unknown check {unknown[0]!r}")
        mistakes.append(MistakeSpec(
            id=mistake_id, exercise=exercise.id, title=m.texts("title"),
            explanation=m.texts("explanation"), hint=m.texts("hint", required=False),
            fails=fails, variants=variants,
            hidden_evidence=m.get("hidden_evidence", bool, default=False, required=False),
            silent=_silence(m, mistake_id, exercise), listed=bool(listed)))
    del r
    return mistakes


def _silence(m: _Reader, mistake_id: str, exercise: Exercise) -> Silence:
    """A mistake's ``silent:`` entry (see MistakeSpec.silent)."""
    value = m.get("silent", dict, default={}, required=False)
    unknown = [k for k in value if k not in ("raises", "rows", "outputs")]
    if unknown:
        m.fail(f"silent of {mistake_id!r} has {unknown[0]!r}: give raises, rows or outputs")
    raises = value.get("raises", False)
    if not isinstance(raises, bool):
        m.fail(f"silent.raises of {mistake_id!r} must be true or false")
    rows, outputs = value.get("rows", {}), value.get("outputs", {})
    if not isinstance(rows, dict) or not isinstance(outputs, dict):
        m.fail(f"silent.rows and silent.outputs of {mistake_id!r} map a function to its silent rows or parts")
    for func, expression in rows.items():
        if func not in exercise.functions:
            m.fail(f"silent.rows of {mistake_id!r} names {func!r}, which is not one of {', '.join(exercise.functions)}")
        if not isinstance(expression, str):
            m.fail(f"silent.rows.{func} of {mistake_id!r} must be an expression (a string)")
        try:
            compile(expression, f"silent.rows.{func}", "eval")
        except SyntaxError as exc:
            m.fail(f"silent.rows.{func} of {mistake_id!r} does not compile: {exc.msg}")
    for func, parts in outputs.items():
        if func not in exercise.functions or not isinstance(parts, list) or not all(
                isinstance(p, (int, str)) and not isinstance(p, bool) for p in parts):
            m.fail(f"silent.outputs of {mistake_id!r} maps one of the functions to a list of indices or keys")
    return Silence(raises=raises, rows=tuple(rows.items()), outputs=tuple((f, tuple(p)) for f, p in outputs.items()))


def _load_info(exercises_dir: Path) -> CourseInfo:
    path = exercises_dir / COURSE_FILE
    if not path.exists():
        name = exercises_dir.resolve().parent.name
        return CourseInfo(title={lang: name for lang in LANGUAGES}, notebook="exercises.ipynb", order=[])
    r = _Reader(path, load_yaml(path) or {})
    notebook = r.get("notebook", str, default="exercises.ipynb", required=False)
    if not notebook.endswith(".ipynb") or "/" in notebook or "\\" in notebook:
        r.fail(f"notebook {notebook!r} must be a file name ending in .ipynb")
    order = r.get("order", list, default=[], required=False)
    if not all(isinstance(x, str) for x in order) or len(set(order)) != len(order):
        r.fail("order must be a list of distinct exercise ids")
    cell_seconds = r.get("notebook_cell_seconds", float, default=10.0, required=False)
    notebook_seconds = r.get("notebook_seconds", float, default=60.0, required=False)
    if not 0 < cell_seconds <= notebook_seconds:
        r.fail("notebook_cell_seconds must be positive and at most notebook_seconds")
    display = r.get("display_packages", list, default=[], required=False)
    if not all(isinstance(p, str) and re.fullmatch(r"[A-Za-z_]\w*", p) for p in display):
        r.fail("display_packages must be a list of top-level package names (such as matplotlib)")
    if {"numpy", "grader"} & set(display):
        r.fail("display_packages names numpy or the grader; numpy is always importable, the grader never")
    return CourseInfo(title=r.texts("title"), notebook=notebook, order=list(order),
                      notebook_cell_seconds=cell_seconds, notebook_seconds=notebook_seconds,
                      display_packages=list(dict.fromkeys(display)))


def _check_messages(folder: Path) -> None:
    """A course's messages: flat mappings of keys to texts, one file per topic and language."""
    for path in sorted(folder.glob("*/*.yaml")) if folder.is_dir() else []:
        data = load_yaml(path) or {}
        r = _Reader(path, data)
        if path.parent.name not in LANGUAGES:
            r.fail(f"messages go in {', '.join(LANGUAGES)}/, not {path.parent.name}/", 1)
        for key, value in data.items():
            if not isinstance(key, str) or not isinstance(value, str):
                r.fail(f"message {key!r} must be a key and a text (a string)")


def load_course(root: Path) -> Course:
    """Read and check a whole course folder."""
    from grader.course.code import CourseCodeError, load_course_code

    root = Path(root)
    exercises_dir = root / "exercises"
    if not exercises_dir.is_dir():
        raise CourseError(f"{root}: not a course folder (no exercises/ inside)")
    paths = sorted(p for p in exercises_dir.glob("*.yaml") if p.name != COURSE_FILE)
    if not paths:
        raise CourseError(f"{exercises_dir}: no exercise YAML files")
    info = _load_info(exercises_dir)
    _check_messages(exercises_dir / "locales")
    try:
        registry = load_course_code(exercises_dir)
    except CourseCodeError as exc:
        raise CourseError(str(exc)) from None
    exercises = []
    coded = set(registry.builders)   # functions whose builder the course's Python gives
    for path in paths:
        exercise, declared = _load_exercise(path, registry.checks)
        references = {}
        for check_id, run in declared.items():
            registry.add(exercise.id, check_id, run)
            if run.kind == "reference" and run.func not in coded:
                references.setdefault(run.func, []).append(run)
        for func, runs in references.items():
            # the counterexample search draws from every declared reference check's inputs (the first
            # check's are the simplest choice): grader/course/declared_checks.py combined_builder
            registry.builders[func] = combined_builder(runs)
            registry.arg_names[func] = max((run.arg_names for run in runs), key=len)
            # without returns: (below), the search names the result as the declared checks do: the function
            registry.result_names.setdefault(func, func)
        for func, names in exercise.returns.items():
            registry.result_names[func] = names
        exercises.append(exercise)
    unknown = [x for x in info.order if x not in {e.id for e in exercises}]
    if unknown:
        raise CourseError(f"{exercises_dir / COURSE_FILE}: order names {unknown[0]!r}, "
                          "which is no exercise of the course")
    order = {ex_id: i for i, ex_id in enumerate(info.order)}
    exercises.sort(key=lambda e: (order.get(e.id, len(order)), e.id))
    course = Course(root=root, exercises={e.id: e for e in exercises}, info=info, registry=registry)
    for exercise in exercises:
        exercise.mistakes_from = ((course.kit_dir / "mistakes" / exercise.id, ".rec") if course.is_kit
                                  else (root / "solutions" / "mistakes" / exercise.id, ".py"))
    return course
