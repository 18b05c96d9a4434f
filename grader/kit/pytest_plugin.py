"""A pytest plugin: run the grader's checks as pytest tests, in a student kit.

Registered through the ``pytest11`` entry point, so pytest loads it wherever
rnn-grader is installed; it stays inert unless the rootdir's configuration sets
``rnn_grader = true`` (the kit's ``pytest.ini`` does) or ``--rnn-grader`` is given.

When active, the submission is the rootdir folder. One synthetic file node (the
rootdir's ini file, else the answers file or a student file) holds one collector
per exercise, and under it one item per *visible* check plus one
``hidden_checks`` item for all of the exercise's hidden checks:

    pytest.ini::step::shape_dtype
    pytest.ini::step::hidden_checks

The first item that runs grades the folder, once, exactly like ``grade check``
(grader/grading/grade_path.py: ``load_submission``, then :class:`grader.grading.engine.Grader`,
sandboxed when possible), restricted to the exercises whose items survived selection
(``-k``, ``--lf``...).
Every item then reports its check's result; a failure's report is the grader's
feedback (message, counterexample, hint, known mistakes). The terminal summary
shows the points, per exercise and in total.
"""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest

from grader.report.escaping import visible
from grader.base.i18n import LANGUAGES, Message, default_language, render, text
from grader.report.view import exercise_view, points, returned_none
from grader.submission.forms import ANSWERS_NAMES, ANSWERS_SUFFIXES, SUFFIXES

SUBMISSION_SUFFIXES = (*SUFFIXES, *ANSWERS_SUFFIXES)     # grader/submission/forms.py
HIDDEN_ITEM = "hidden_checks"
_STATE = pytest.StashKey["GradingState"]()


# ------------------------------------------------------------------ options


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rnn_grader", "rnn-grader (grade the exercises of this folder)")
    group.addoption("--rnn-grader", action="store_true", dest="rnn_grader", default=False,
                    help="Grade the rootdir folder as a submission (as when the ini option rnn_grader is true).")
    names = ["--rnn-grader-lang"]
    if not _option_taken(parser, "--lang"):
        names.insert(0, "--lang")
    group.addoption(*names, dest="rnn_grader_lang", choices=LANGUAGES, default=None,
                    help="Language of the grader's feedback (default: the ini option rnn_grader_lang, "
                         "else zh for a Chinese locale, else en).")
    group.addoption("--rnn-grader-no-sandbox", action="store_true", dest="rnn_grader_no_sandbox", default=False,
                    help="Run student code as a plain process, without bubblewrap (like grade check --no-sandbox).")
    parser.addini("rnn_grader", type="bool", default=False,
                  help="rnn-grader: grade this folder's exercises as pytest tests.")
    parser.addini("rnn_grader_lang", type="string", default="",
                  help="rnn-grader: language of the feedback (en or zh).")
    group.addoption("--rnn-grader-course", dest="rnn_grader_course", default=None,
                    help="A course folder to grade against (default: the ini option rnn_grader_course, "
                         "else the course the grader was installed with).")
    parser.addini("rnn_grader_course", type="string", default="",
                  help="rnn-grader: a course folder to grade against, relative to the ini file.")


def _option_taken(parser, name: str) -> bool:
    """Whether a plugin loaded before us already owns ``name`` (best effort: pytest has no public API)."""
    try:
        groups = [parser._anonymous, *parser._groups]   # noqa: SLF001
        return any(name in option.names() for group in groups for option in group.options)
    except AttributeError:
        return True


def pytest_configure(config: pytest.Config) -> None:
    if not (config.getoption("rnn_grader") or config.getini("rnn_grader")):
        return
    lang = config.getoption("rnn_grader_lang") or config.getini("rnn_grader_lang").strip() or default_language()
    if lang not in LANGUAGES:
        raise pytest.UsageError(f"rnn_grader_lang must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    state = GradingState(config, lang)
    config.stash[_STATE] = state
    for exercise_id in state.exercise_ids():
        config.addinivalue_line("markers", f"{exercise_id}: the checks of the rnn-grader exercise {exercise_id}")


def _state(config: pytest.Config) -> GradingState | None:
    return config.stash.get(_STATE, None)


# ------------------------------------------------------------------ grading, once per session


class GradingError(Exception):
    """The folder could not be graded at all (bad input or a grader bug): every item fails with it."""


class GradingState:
    def __init__(self, config: pytest.Config, lang: str):
        self.config = config
        self.lang = lang
        self.root = Path(config.rootpath)
        self.anchor = find_anchor(self.root, config.inipath)
        self.no_sandbox = bool(config.getoption("rnn_grader_no_sandbox"))
        self.course = None
        self.course_error: str | None = None
        self.graded = False
        self.result = None                # grader.report.results.SubmissionResult
        self.error: str | None = None     # one line: why the folder could not be graded
        self.details: str | None = None   # the traceback of an internal error, shown once
        self.not_sandboxed: str | None = None
        self._load_course()

    def _course_root(self) -> Path:
        from grader.course.loader import bundled_course_root
        given = self.config.getoption("rnn_grader_course")
        if given:
            return Path(given).resolve()
        from_ini = self.config.getini("rnn_grader_course").strip()
        if from_ini:
            base = Path(self.config.inipath).parent if self.config.inipath else self.root
            return (base / from_ini).resolve()
        return bundled_course_root()

    def _load_course(self):
        from grader.course.loader import load_course
        from grader.base.errors import CourseError
        try:
            root = self._course_root()
            if not root.is_dir():
                raise CourseError(f"no such course folder: {root}")
            self.course = load_course(root)
        except CourseError as exc:
            self.course_error = one_line(exc)

    def exercise_ids(self) -> list[str]:
        return list(self.course.exercises) if self.course is not None else []

    def grade(self, session: pytest.Session):
        """Grade the folder the first time an item asks; later items reuse the result."""
        if self.graded:
            return
        self.graded = True
        selected = {item.exercise.id for item in session.items if isinstance(item, CheckItem)}
        only = [e for e in self.course.exercises if e in selected]
        # The same path as `grade check` (grader/grading/grade_path.py): a private copy, then Grader.grade.
        from grader.grading.engine import Grader
        from grader.base.errors import BadInput, CourseError, SubmissionError
        from grader.grading.grade_path import grade_path

        def make_grader():
            return Grader(self.course, isolation="none" if self.no_sandbox else "auto")

        def note_isolation(isolation):
            if not isolation.sandboxed and not self.no_sandbox:
                self.not_sandboxed = isolation.reason

        try:
            self.result = grade_path(self.root, make_grader, only, on_start=note_isolation)
        except (BadInput, SubmissionError, CourseError) as exc:
            self.error = one_line(exc)
        except Exception as exc:  # noqa: BLE001 -- a grader bug: every item says so, the first shows where
            self.error = f"internal error: {type(exc).__name__}: {one_line(exc)}"
            self.details = traceback.format_exc()

    @property
    def messages(self):
        """The course's catalogue (the package's where the course did not load)."""
        return self.course.messages if self.course is not None else None

    def exercise_result(self, exercise_id: str):
        if self.error is not None:
            details, self.details = self.details, None
            raise GradingError(render("pytest.grading_failed", self.lang, self.messages, error=self.error)
                               + ("\n\n" + details if details else ""))
        for exercise in self.result.exercises:
            if exercise.id == exercise_id:
                return exercise
        raise GradingError(render("pytest.grading_failed", self.lang, self.messages,
                                  error=f"no result for {exercise_id}"))


def find_anchor(root: Path, inipath) -> Path | None:
    """The one file of the rootdir whose collection yields the grader's items."""
    if inipath is not None and Path(inipath).parent == root:
        return Path(inipath)
    try:
        files = sorted(p for p in root.iterdir() if p.is_file())
    except OSError:
        return None
    for name in ANSWERS_NAMES:
        for path in files:
            if path.name.lower() == name:
                return path
    for path in files:
        if path.suffix.lower() in SUBMISSION_SUFFIXES and not path.name.startswith(("test_", ".")):
            return path
    return None


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# ------------------------------------------------------------------ collection


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    state = _state(parent.config)
    if state is not None and state.anchor is not None and file_path == state.anchor:
        return SubmissionFile.from_parent(parent, path=file_path)
    return None


class SubmissionFile(pytest.File):
    """The synthetic node of the submission folder: one collector per exercise."""

    def collect(self):
        state = _state(self.config)
        if state.course is None:
            raise self.CollectError(f"rnn-grader: cannot load the course: {state.course_error}")
        for exercise in state.course.exercises.values():
            yield ExerciseNode.from_parent(self, name=exercise.id, exercise=exercise)


class ExerciseNode(pytest.Collector):
    def __init__(self, *, exercise, **kwargs):
        super().__init__(**kwargs)
        self.exercise = exercise
        self.add_marker(exercise.id)

    def collect(self):
        for check in self.exercise.checks:
            if not check.hidden:
                yield CheckItem.from_parent(self, name=check.id, exercise=self.exercise, check=check)
        if any(check.hidden for check in self.exercise.checks):
            yield CheckItem.from_parent(self, name=HIDDEN_ITEM, exercise=self.exercise, check=None)


class CheckFailed(Exception):
    """A check (or the exercise's hidden checks) failed; the message is the grader's feedback."""


class CheckItem(pytest.Item):
    """One visible check, or (``check is None``) all hidden checks of one exercise."""

    def __init__(self, *, exercise, check, **kwargs):
        super().__init__(**kwargs)
        self.exercise = exercise
        self.check = check

    def runtest(self):
        state = _state(self.config)
        if state.course.is_kit and (self.check is None or self.exercise.is_quiz):
            # A student kit holds neither hidden inputs nor the answer key: the instructor grades these.
            owed = sum(c.points for c in self.exercise.checks if c.hidden) if self.check is None else self.check.points
            pytest.skip(render("pytest.kit_instructor", state.lang, state.messages, points=points(owed)))
        state.grade(self.session)
        exercise = state.exercise_result(self.exercise.id)
        if self.check is None:
            checks = [c for c in exercise.checks if c.hidden]
        else:
            checks = [c for c in exercise.checks if c.name == self.check.id]
        self.user_properties.append(("score", points(sum(c.score for c in checks))))
        self.user_properties.append(("max_score", points(sum(c.max_score for c in checks))))
        if not checks:
            raise GradingError(render("pytest.grading_failed", state.lang, state.messages,
                                      error=f"no result for {self.nodeid}"))
        if all(c.passed for c in checks):
            return
        if self.check is None:
            raise CheckFailed(hidden_feedback(exercise, state.lang, state.messages))
        raise CheckFailed(check_feedback(exercise, checks[0], state.lang, state.messages))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (CheckFailed, GradingError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"{self.exercise.id}::{self.name}"


# ------------------------------------------------------------------ feedback


def _msg(key: str, lang: str, messages=None, **params) -> str:
    return Message(key, params).render(lang, messages)


def check_feedback(exercise, check, lang: str, messages=None) -> str:
    """What `grade check` says about one failing visible check, and the exercise's known mistakes
    (the view of grader/report/view.py decides what is shown), with ``messages`` (the course's
    catalogue). The first line is the failure itself (pytest shows it in the short summary)."""
    view = exercise_view(exercise, lang, messages)
    shown = next(c for c in view.checks if c.name == check.name)
    lines = list((shown.message or shown.title).splitlines() or [""])
    if returned_none(check):   # said plainly, and no hint guesses under it (issue 39)
        lines.append(_msg("report.returns_none", lang, messages, name=check.func or "?"))
    lines.extend(shown.counterexample.splitlines())
    if shown.hint:
        lines.append(f"{_msg('report.hint', lang, messages)}: {shown.hint}")
    lines.append(render("pytest.check", lang, messages, id=f"{view.id}::{shown.name}", title=shown.title,
                        score=points(shown.score), max_score=points(shown.max_score)))
    if view.carrier is shown:
        lines.extend(exercise_feedback(view, lang, messages))
    elif view.diagnoses and view.carrier is not None and not view.carrier.hidden:
        lines.append(render("pytest.mistake_elsewhere", lang, messages, id=f"{view.id}::{view.carrier.name}"))
    return "\n".join(lines)


def hidden_feedback(exercise, lang: str, messages=None) -> str:
    """How many hidden checks failed and their points -- never their messages or inputs."""
    view = exercise_view(exercise, lang, messages)
    hidden = [c for c in view.checks if c.hidden]
    failed = [c for c in hidden if not c.passed]
    lines = [render("pytest.hidden_failed", lang, messages, failed=len(failed), total=len(hidden),
                    lost=points(sum(c.max_score - c.score for c in failed)),
                    points=points(sum(c.max_score for c in hidden)))]
    if view.problem:
        lines.append(f"{_msg('report.problem', lang, messages)}: {view.problem}")
    for check in failed:
        lines.append(f"  ✗ {check.name}  {check.points}  {check.title}")
    if view.carrier is None or view.carrier.hidden:
        lines.extend(exercise_feedback(view, lang, messages))
    elif view.diagnoses:
        lines.append(render("pytest.mistake_elsewhere", lang, messages, id=f"{view.id}::{view.carrier.name}"))
    return "\n".join(lines)


def exercise_feedback(view, lang: str, messages=None) -> list[str]:
    """The exercise's named known mistakes, and what the student's code printed."""
    lines = []
    for diagnosis in view.diagnoses:
        lines.append("")
        lines.append(f"{_msg('report.diagnosis', lang, messages)} [{diagnosis.id}]: {diagnosis.title}")
        lines.append(f"    {diagnosis.explanation}")
        if diagnosis.hint:
            lines.append(f"    {_msg('report.hint', lang, messages)}: {diagnosis.hint}")
    excerpt = view.output_excerpt()
    if excerpt:
        lines.append("")
        lines.append(f"{_msg('report.output', lang, messages)}:")
        lines.extend("    | " + row for row in visible(excerpt).splitlines())
    return lines


# ------------------------------------------------------------------ the points


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    state = _state(config)
    if state is None or not state.graded:
        return
    tr, lang, messages = terminalreporter, state.lang, state.messages
    tr.write_sep("=", "rnn-grader", bold=True)
    if state.not_sandboxed is not None:
        tr.write_line(render("pytest.not_sandboxed", lang, messages, reason=state.not_sandboxed),
                      yellow=True, bold=True)
    if state.result is None:
        tr.write_line(render("pytest.grading_failed", lang, messages, error=state.error), red=True)
        return
    result = state.result
    for note in result.notes:
        if note.key != "note.not_sandboxed" or state.not_sandboxed is None:
            tr.write_line(note.render(lang, messages), yellow=True)
    tr.write_line(f"{_msg('report.isolation', lang, messages)}: {result.isolation}")
    width = max([len(e.id) for e in result.exercises] + [8])
    for exercise in result.exercises:
        complete = exercise.score == exercise.max_score
        tr.write_line(f"  {exercise.id:<{width}}  {points(exercise.score):>5}/{points(exercise.max_score):<4}  "
                      f"{text(exercise.title, lang)}", green=complete, red=not complete)
    tr.write_line(render("pytest.score", lang, messages, score=points(result.score),
                         max_score=points(result.max_score)),
                  bold=True, green=result.all_passed, red=not result.all_passed)
