"""Grading one submission: the pipeline from a loaded submission to results.

For each exercise: find the student module, import it in a worker child of
its own (grader/sandbox/client.py), run the exercise's planned calls in one request
(grader/grading/plan.py), run its checks (each may only pass or fail), name known
mistakes from its visible checks' calls where points were lost (and from its
hidden checks' calls for a mistake whose catalogue allows it), and score. A
broken file costs only the exercises that live in it.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from grader.submission.answers import read_answers_yaml
from grader.checks.api import Context, Fail, course_frame
from grader.report.escaping import plain
from grader.grading.counterexample import Budget as CounterexampleBudget
from grader.grading.counterexample import behaviour
from grader.grading.counterexample import recheck as recheck_counterexample
from grader.grading.counterexample import search as search_counterexample
from grader.course.loader import Course, Exercise
from grader.grading.diagnose import Diagnoser
from grader.sandbox.display_packages import declare as declare_display_packages
from grader.base.errors import CourseError, InternalError
from grader.grading.graded_work import WHAT_WAS_GRADED, prepare
from grader.base.i18n import Message, add_course_messages
from grader.course.kit_records import NotInKit
from grader.sandbox.plain_code import shares_one_child
from grader.grading.plan import Plan, record_plan
from grader.report.results import CheckResult, Diagnosis, ExerciseResult, SubmissionResult
from grader.sandbox.client import StudentError, Worker
from grader.course.runtime import CourseRuntime
from grader.grading.stand_ins import StandInAnswers, stand_ins_for
from grader.sandbox.trusted_calls import Overrun
from grader.submission.load import Submission
from grader.report.view import points
from grader.sandbox.notebook_run import notebook_runs
from grader.grading.worker_errors import stopped_cell_notes, submission_error_message, submission_import_message

MISSING = object()   # no student with a function that behaved alike came before
# Failures worth a counterexample: wrong values or an exception, not a missing function or a crash.
SEARCHABLE = ("cmp.", "prop.", "err.exception")
# ... but not an argument changed in place: the search compares results only, so all it could
# show is a call whose result is wrong, which is not what that check says (and, for a function
# whose results are right, a search through cases that cannot fault it).
UNSEARCHABLE = ("prop.input_modified",)
DEFAULT_TIME_LIMIT = 300.0   # seconds of wall clock for one whole submission
STRICT = os.environ.get("GRADER_STRICT") == "1"   # tests: a bug in a check raises instead of failing it
# Functions of exercises that lost points are answered by the reference in later exercises
# (grader/grading/stand_ins.py); GRADER_STAND_INS=0 grades every exercise with the student's own.
STAND_INS = os.environ.get("GRADER_STAND_INS", "1") != "0"


@dataclass
class _Graded:
    """An exercise whose visible checks are done, waiting for its hidden ones."""

    exercise: Exercise
    student: object
    ctx: Context
    checks: dict
    plan: Plan
    named: list | None    # the known mistakes its calls show (None: not looked for yet)
    visible_calls: list   # its visible checks' calls, kept only until then


class GradingContext(Context):
    """Context, with the trusted side's refusals (grader/sandbox/client.py) in the student's terms, and
    files named as the student handed them in (a single file or notebook by its own name)."""

    submission: Submission | None = None
    notebooks: dict = {}     # the submission's notebook runs (grader/sandbox/notebook_run.py), by module

    def error_message(self, error: dict, func: str) -> tuple:
        return submission_error_message(error, func, self.exercise, self.submission, self.runtime.course,
                                        self._describe_line, self.notebooks)


def names_from_hidden_calls(exercise: Exercise) -> bool:
    """Whether some known mistake of the exercise may be named from its hidden checks' calls too
    (``hidden_evidence: true`` in its catalogue entry): its diagnosis then waits for them."""
    return any(m.hidden_evidence for m in exercise.mistakes)


def kit_notes(graded: list[Exercise], by_instructor: list[Exercise]) -> list[Message]:
    """What a student kit's report does not grade, and what it is worth."""
    hidden = [c for e in graded for c in e.checks if c.hidden]
    notes = []
    if hidden:
        notes.append(Message("note.kit_hidden", count=len(hidden), points=points(sum(c.points for c in hidden))))
    for exercise in by_instructor:
        notes.append(Message("note.kit_quiz", id=exercise.id, points=points(exercise.max_score)))
    return notes


class Grader:
    """Grades submissions against one course; reusable across many submissions."""

    def __init__(self, course: Course, worker: Worker | None = None, runtime: CourseRuntime | None = None,
                 isolation: str = "auto", time_limit: float = DEFAULT_TIME_LIMIT, counterexamples: bool = True,
                 hidden: bool = True, private: list[Path] = ()):
        """``private``: more paths student code must not reach (a class's folder, its gradebook);
        the course's are always."""
        self.course = course
        self.runtime = runtime or CourseRuntime(course)
        # A student kit has no hidden check to run (nor the secret their inputs come from) and no
        # answer key: its reports grade the visible checks and say what the instructor grades.
        self.kit = self.runtime.kit
        self.hidden = hidden and not self.kit
        counterexamples = counterexamples and not self.kit   # a search needs the reference on new inputs
        declare_display_packages(course.info.display_packages if course.info else ())   # before the worker starts
        self.worker = worker or Worker(isolation=isolation, hidden=[course.root, *private])
        if worker is None:
            self.worker.prestart()   # starts while the submission is staged and the plan drawn
        self.diagnoser = Diagnoser(self.runtime)
        self.checks = course.registry.checks
        add_course_messages(course.exercises_dir / "locales", course.info.title)   # its messages win
        self.time_limit = time_limit
        self.counterexamples = counterexamples
        self._counterexamples: dict = {}

    @property
    def isolation(self) -> str:
        return self.worker.isolation.name

    def hidden_right_after(self, shared: bool) -> bool:
        """Whether each exercise's hidden checks run right after its visible ones. In the
        sandbox they do, in the exercise's own child: the next exercise gets a fresh child
        and an emptied /tmp (as the next submission does), so nothing shown later can see
        what they learnt, and each exercise costs one child rather than two. Without it, or
        where the exercises share one child (``shared``, see :func:`shares_one_child`), the
        hidden checks of every exercise run last."""
        return self.worker.isolation.sandboxed and not shared

    def close(self):
        self.worker.stop()
        self.runtime.close()   # the helper of bounded calls (grader/sandbox/trusted_calls.py)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def grade(self, submission: Submission, only=(), progress=None) -> SubmissionResult:
        """``progress``: told of each exercise as it starts and ends (grader/classroom/progress.py)."""
        start = time.perf_counter()
        submission = prepare(submission, self.course)   # the notebook or the .py files (grader/grading/graded_work.py)
        self._import_failures: dict[str, dict] = {}
        self._notebook_runs: dict = {}
        self._timed_out: dict[str, float] = {}    # functions not called again (grader/sandbox/client.py)
        self._deadline = time.monotonic() + self.time_limit
        self._cx_budget = CounterexampleBudget()
        results: dict[str, ExerciseResult] = {}
        elapsed: dict[str, float] = {}
        exercises = self.course.select(only)
        by_instructor = [e for e in exercises if e.is_quiz] if self.kit else []
        exercises = [e for e in exercises if e not in by_instructor]
        shared = shares_one_child(submission)
        right_after = self.hidden_right_after(shared)
        self._lost: set[str] = set()   # exercises that lost points: later ones get stand-ins for them
        self._lost_hidden: set[str] = set()   # ... on hidden checks only: later hidden checks get them
        # Functions of exercises that kept their visible points only with stand-ins inside (a right
        # function over a wrong helper it calls): later exercises stand them in as well (stand_ins_for).
        self._leaning: dict[str, set[str]] = {}
        self._submission = submission
        self._broken: set[str] = set()   # modules that do not import or are missing
        self._done: set[str] = set()     # exercises wholly graded
        self._shared = shared
        if progress is not None:
            progress.start(total=len(exercises))
        notebooks = notebook_runs(submission, self.course)
        with (self.worker.staged(submission.root) as self._root, self._sharing(shared), self._stand_ins(),
              self._notebooks(notebooks)):
            pending = []
            for exercise in exercises:
                if progress is not None:
                    progress.begin(exercise.id)
                t0 = time.perf_counter()
                if exercise.is_quiz:
                    results[exercise.id] = self._grade_quiz(exercise, submission)
                else:
                    outcome = self._visible_checks(exercise, submission)
                    if isinstance(outcome, ExerciseResult):
                        self._done.add(exercise.id)
                        results[exercise.id] = outcome
                    elif right_after:
                        results[exercise.id] = self._hidden_checks(outcome)
                    else:
                        pending.append(outcome)
                elapsed[exercise.id] = time.perf_counter() - t0
                if progress is not None:
                    progress.advance(exercise.id)
            # Without the sandbox, hidden checks run last, once every visible check and
            # counterexample search is done: whatever student code learns from a hidden input,
            # nothing shown comes after.
            while pending:
                graded = pending.pop(0)   # let go of each exercise as soon as it is graded
                t0 = time.perf_counter()
                results[graded.exercise.id] = self._hidden_checks(graded)
                elapsed[graded.exercise.id] += time.perf_counter() - t0
        for exercise_id, result in results.items():
            result.elapsed = elapsed[exercise_id]
        notes = [*submission.messages, *(Message("note.submission", text=plain(n, 500)) for n in submission.notes)]
        first = 1 if notes and notes[0].key in WHAT_WAS_GRADED else 0     # after what was graded, named once
        notes[first:first] = stopped_cell_notes(submission, notebooks, self.course)
        if not self.worker.isolation.confined:
            notes.append(Message("note.not_sandboxed", reason=self.worker.isolation.reason))
        elif not self.worker.isolation.sandboxed:   # the fallback (grader/sandbox/isolation.py) says which it is
            notes.append(Message("note.confined", how=self.isolation, reason=self.worker.isolation.reason))
        notes += kit_notes(exercises, by_instructor) if self.kit else []
        return SubmissionResult(source=plain(str(submission.source), 500),
                                exercises=[results[e.id] for e in exercises], notes=notes,
                                isolation=self.isolation, elapsed=time.perf_counter() - start)

    @contextlib.contextmanager
    def _stand_ins(self):
        """Answers to the submission's stand-in calls (grader/grading/stand_ins.py); a kit has no reference."""
        self.worker.stand_in_handler = None if self.kit or not STAND_INS else StandInAnswers(self.runtime, self.course)
        bounded = self.runtime.trusted_calls()   # its budget of diagnosis replays is the submission's own
        if bounded is not None:
            bounded.new_submission()
        try:
            yield
        finally:
            self.worker.stand_in_handler = None

    @contextlib.contextmanager
    def _notebooks(self, notebooks: dict):
        """The submission's notebook modules, run cell by cell (grader/sandbox/notebook_run.py)."""
        self.worker.notebooks = notebooks
        self._notebook_runs = notebooks
        try:
            yield
        finally:
            self.worker.notebooks = {}

    @contextlib.contextmanager
    def _sharing(self, shared: bool):
        self.worker.share_children = shared
        try:
            yield
        finally:
            self.worker.share_children = False

    # ------------------------------------------------------------ code exercises

    def _visible_checks(self, exercise: Exercise, submission: Submission):
        """The exercise's visible checks and counterexamples: an ExerciseResult if the module
        cannot be graded at all, else a _Graded waiting for its hidden checks."""
        module = submission.module_for(exercise.file)
        if module is None:
            self._lost.add(exercise.id)   # stand_ins_for makes an empty module for a missing file
            return failed_exercise(exercise, Message("err.missing_file", file=exercise.file))
        if module in submission.rejected:   # refused at loading (its encoding): the keyed message
            self._lost.add(exercise.id)
            self._broken.add(module)
            return failed_exercise(exercise, submission.rejected[module])
        if module in self._import_failures:
            self._lost.add(exercise.id)
            return self._import_failed(exercise, submission, self._import_failures[module])
        student = self.worker.module(self._root, module, exercise.timeout, self._deadline, slot=exercise.id,
                                     exercise=exercise.id)
        student.timed_out = self._timed_out
        answers = self.worker.stand_in_handler
        if answers is not None:
            # An exercise's functions are stood in only once it is wholly graded (its hidden checks
            # too), so nothing learnt from the reference reaches its own grading; in a shared child
            # (plain code) nothing outlives an exercise's fresh modules, so its visible checks suffice.
            ready = self._lost if self._shared else self._lost & self._done
            answers.exercise = exercise.id
            student.stand_ins = stand_ins_for(self.course, exercise, ready, submission.module_for, self._broken,
                                              self._leaning_ready(not self._shared))
        plan = self.plan(exercise)
        error = student.open(plan=plan.visible)
        if error is not None:
            self._lost.add(exercise.id)
            self._broken.add(module)
            self._import_failures[module] = error
            return self._import_failed(exercise, submission, error, student.output)
        ctx = GradingContext(self.runtime, exercise, student, submission.describe_line)
        ctx.submission = submission
        ctx.notebooks = self._notebook_runs
        checks = {spec.id: self._run_check(ctx, spec) for spec in exercise.checks if not spec.hidden}
        student.finish_plan()
        # From the visible checks (and imports) alone: hidden ones run last where the exercises
        # share a child, and the visible marks must not depend on where the hidden checks ran.
        # (An exercise that loses only hidden points is stood in for later hidden checks:
        # _hidden_checks.)
        if not all(c.passed for c in checks.values()):
            self._lost.add(exercise.id)
        elif answers is not None and (leaning := answers.leaning(exercise)):
            self._leaning[exercise.id] = leaning
        if self.counterexamples:
            self._add_counterexamples(ctx, list(checks.values()), module)
        # What the student is told is named from the visible checks' calls alone: whether a
        # mistake is named then says nothing about a hidden input. Where a visible check failed,
        # mistakes are looked for now; the results are kept for the hidden checks only where every
        # visible check passed (they are the reference's size) or the instructor's diagnosis
        # (hidden_evidence) needs them too. An exercise with every check passed has nothing to explain.
        calls, ctx.calls, ctx.last = ctx.calls, [], None
        if all(c.passed for c in checks.values()):
            return _Graded(exercise, student, ctx, checks, plan, None, calls)
        return _Graded(exercise, student, ctx, checks, plan, self._diagnose(exercise, calls),
                       calls if self._hidden_evidence(exercise) else [])

    def _hidden_checks(self, graded: "_Graded") -> ExerciseResult:
        exercise, student, ctx, checks = graded.exercise, graded.student, graded.ctx, graded.checks
        hidden = [spec for spec in exercise.checks if spec.hidden] if self.hidden else []
        answers = self.worker.stand_in_handler
        if answers is not None:
            answers.exercise = exercise.id
        if hidden:
            student.keep_output = False
            # The module as the visible checks left it; but where an earlier exercise has since
            # lost hidden points (it is wholly graded: in every mode its hidden checks ran before
            # these), its functions are stood in too, in a fresh import, so a bug seen only by
            # its hidden checks does not dock these as well.
            fresh = self._stand_in_hidden_losses(exercise, student)
            student.open(fresh=fresh, plan=graded.plan.hidden)
            checks.update((spec.id, self._run_check(ctx, spec)) for spec in hidden)
            student.finish_plan()
            if not all(checks[spec.id].passed for spec in hidden):
                self._lost_hidden.add(exercise.id)
        student.close()
        calls = graded.visible_calls
        hidden_calls = ctx.calls if self._hidden_evidence(exercise) else []
        ctx.calls, ctx.last, graded.visible_calls = [], None, []
        results = [checks[spec.id] for spec in exercise.checks if spec.id in checks]
        named = graded.named
        if named is None:
            named = [] if all(c.passed for c in results) else self._diagnose(exercise, calls)
        diagnoses = [Diagnosis(m.id, m.title, m.explanation, m.hint, m.evidence) for m in named]
        # For the instructor only (never rendered to the student): what a hidden check's calls show.
        hidden_named = [] if not hidden_calls or all(c.passed for c in results) else [
            m.id for m in self._diagnose(exercise, calls, hidden_calls) if m not in named]
        self._done.add(exercise.id)
        leaning = {k: v for k, v in self._leaning.items() if k not in self._lost_hidden}
        note = answers.note(exercise.id, leaning) if answers is not None else None
        return ExerciseResult(id=exercise.id, title=exercise.title, checks=results, diagnoses=diagnoses,
                              hidden_diagnoses=hidden_named,
                              output="".join(student.output), notes=[note] if note else [])

    def _stand_in_hidden_losses(self, exercise: Exercise, student) -> bool:
        """Add stand-ins for wholly graded exercises that lost only hidden points; whether the
        module must be imported afresh for them."""
        if self.worker.stand_in_handler is None:
            return False
        ready = (self._lost | self._lost_hidden) & self._done
        more = stand_ins_for(self.course, exercise, ready, self._submission.module_for, self._broken,
                             self._leaning_ready(True))
        wanted = tuple(sorted(set(student.stand_ins) | set(more)))
        if wanted == tuple(student.stand_ins):
            return False
        student.stand_ins = wanted
        return True

    def _leaning_ready(self, done_only: bool) -> dict:
        """The leaning functions later exercises may stand in (where the child is not shared, only
        wholly graded exercises', as for lost ones)."""
        return {k: v for k, v in self._leaning.items() if not done_only or k in self._done}

    def plan(self, exercise: Exercise) -> Plan:
        """The calls the exercise's checks make on correct code (grader/grading/plan.py), once per run."""
        return self.runtime.memo(("plan", exercise.id),
                                 lambda: record_plan(self.runtime, exercise, self.checks, self.hidden))

    def _hidden_evidence(self, exercise) -> bool:
        """Whether the exercise's hidden checks run here and some mistake may be named from them."""
        return self.hidden and names_from_hidden_calls(exercise)

    def _diagnose(self, exercise, calls, hidden_calls=()):
        """Named mistakes (with ``hidden_calls``: the instructor's, grader/grading/diagnose.py); a student
        value that breaks the replay costs the diagnosis only."""
        try:
            if hidden_calls:
                return self.diagnoser.diagnose_hidden(exercise, calls, hidden_calls)
            return self.diagnoser.diagnose(exercise, calls)
        except Overrun:   # a replay of a student's arguments stopped at a limit (grader/sandbox/trusted_calls.py)
            return []
        except CourseError:
            raise
        except SyntaxError as exc:   # a known mistake's file does not compile: the course's error
            raise CourseError(f"{exc.filename}:{exc.lineno}: a known mistake of {exercise.id} does not compile: "
                              f"{exc.msg}") from None
        except Exception as exc:  # noqa: BLE001
            if STRICT:
                raise InternalError(f"diagnosis of {exercise.id} broke: {exc!r}") from exc
            return []

    def _add_counterexamples(self, ctx: Context, checks: list[CheckResult], module: str):
        """For the first failing visible check of each function, the smallest failing input.

        Students whose function behaves the same on every graded call share one search
        (the cached input is re-checked on each of them, one call). The search calls a
        module of its own (a fresh import in the same child), so the exercise's module is
        left as its visible checks left it for its hidden ones."""
        graded_student = ctx.student
        ctx.student = self.worker.module(self._root, module, ctx.exercise.timeout, self._deadline,
                                         slot=f"{ctx.exercise.id}#search", exercise=ctx.exercise.id)
        ctx.student.keep_output = False
        ctx.student.stand_ins = graded_student.stand_ins
        ctx.student.timed_out = graded_student.timed_out
        try:
            self._search_counterexamples(ctx, checks)
        finally:
            ctx.student = graded_student

    def _search_counterexamples(self, ctx: Context, checks: list[CheckResult]):
        searched = set()
        for result in checks:
            func = result.func
            if (result.passed or result.hidden or not func or func in searched or result.message is None
                    or not result.message.key.startswith(SEARCHABLE) or result.message.key in UNSEARCHABLE):
                continue
            searched.add(func)
            key = (ctx.exercise.id, func, behaviour(ctx.calls, func))
            # A student whose function behaved alike came before: their answer, found or not,
            # if their counterexample shows this function going wrong too (one call).
            known = self._counterexamples.get(key, MISSING)
            found = recheck_counterexample(ctx, known) if known not in (None, MISSING) else None
            if found is None and known is not None:
                found = self._counterexamples[key] = self._search(ctx, func)
            if found is not None:
                result.counterexample = found.message()

    def _search(self, ctx: Context, func: str):
        """The counterexample search; a failure of the course's builder, names or reference on the
        builder's inputs is a course error naming the course file, never the student's."""
        try:
            return search_counterexample(ctx, func, self._cx_budget)
        except (CourseError, StudentError):
            raise
        except Exception as exc:  # noqa: BLE001 -- the course's builders may raise anything
            frame = course_frame(exc, ctx)
            if not frame:
                raise
            raise CourseError(f"the counterexample search for {func}() failed in the course's code{frame}: "
                              f"{type(exc).__name__}: {exc}") from None

    def _import_failed(self, exercise, submission, error, output=()):
        result = failed_exercise(exercise, self._import_problem(error, exercise, submission))
        result.output = "".join(output)
        return result

    def _import_problem(self, cause: dict, exercise, submission) -> Message:
        """Why the exercise's file does not import, naming the file as the student handed it in."""
        return Message(*submission_import_message(cause, submission.file_of(exercise.file), submission, self.course))

    def _run_check(self, ctx: Context, spec) -> CheckResult:
        implementation = self.checks[ctx.exercise.id][spec.id]
        result = CheckResult(name=spec.id, passed=False, score=0.0, max_score=spec.points,
                             title=spec.title, hint=spec.hint, hidden=spec.hidden)
        ctx.student.keep_output = not spec.hidden
        answers = self.worker.stand_in_handler
        overruns = len(answers.overruns) if answers is not None else 0
        try:
            implementation(ctx)
        except Fail as failure:
            result.message = self._overrun(overruns, ctx) or failure.message
            result.func = ctx.current
            result.hint = spec.hint_for(result.message.key)   # the hint for this way of failing
            return result
        except NotInKit:   # a student kit without the record this check needs: the instructor grades it
            result.message = Message("kit.not_recorded")
            return result
        except CourseError:   # the course's code or YAML is wrong (grader/checks/api.py Context.course_error)
            raise
        except Exception as exc:  # noqa: BLE001 -- odd student values must not stop the grader
            if STRICT:
                raise InternalError(f"check {ctx.exercise.id}.{spec.id} broke: {exc!r}") from exc
            result.message = self._overrun(overruns, ctx) or Message("err.unjudgeable", detail=type(exc).__name__)
            result.internal = f"{type(exc).__name__}: {exc}"
            return result
        result.passed, result.score = True, spec.points
        return result

    def _overrun(self, since: int, ctx: Context) -> Message | None:
        """What a check that failed says when a stand-in call made for it was stopped at a limit
        (grader/grading/stand_ins.py): which function, which limit. ``since``: the overruns before it."""
        answers = self.worker.stand_in_handler
        return answers.overrun_message(since, ctx.exercise.id, ctx.current) if answers is not None else None

    # ------------------------------------------------------------ the quiz

    def _grade_quiz(self, exercise: Exercise, submission: Submission) -> ExerciseResult:
        from grader.quiz.grade import grade_quiz

        answers, problem, output = self._answers(exercise, submission)
        if problem is not None:
            return failed_exercise(exercise, problem)
        return grade_quiz(exercise, answers, self.runtime.answer_key(), output)

    def _answers(self, exercise, submission):
        """The student's answers as a dict, or the problem that prevents reading them."""
        if submission.answers_file is not None:
            return (*read_answers_yaml(submission.answers_file), "")
        module = submission.single_module
        if module is None:
            return {}, Message("err.missing_file", file=exercise.file), ""
        if module in submission.rejected:
            return {}, submission.rejected[module], ""
        if module in self._import_failures:
            return {}, self._import_problem(self._import_failures[module], exercise, submission), ""
        student = self.worker.module(self._root, module, exercise.timeout, self._deadline, exercise=exercise.id)
        try:
            value = student.getattr("ANSWERS").value
        except StudentError as exc:
            if exc.kind == "import":
                self._import_failures[module] = exc.error.get("cause") or {}
                return {}, self._import_problem(exc.error.get("cause") or {}, exercise, submission), ""
            if exc.kind == "missing":
                return {}, Message("err.no_answers_dict"), ""
            return {}, Message("err.answers_unreadable", detail=exc.kind), ""
        finally:
            student.close()
        if not isinstance(value, dict):
            return {}, Message("err.answers_not_dict", got=type(value).__name__), ""
        return value, None, "".join(student.output)


def failed_exercise(exercise: Exercise, problem: Message) -> ExerciseResult:
    checks = [CheckResult(name=c.id, passed=False, score=0.0, max_score=c.points, message=problem,
                          title=c.title, hint=c.hint, hidden=c.hidden) for c in exercise.checks]
    return ExerciseResult(id=exercise.id, title=exercise.title, checks=checks, problem=problem)
