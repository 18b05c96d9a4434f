"""Grading submissions against one course: what every submission's grading shares.

A :class:`Grader` is built once per course and settings: the course, its runtime (the
reference's results, memoised; or a student kit's records), the worker (grader/sandbox/client.py)
and the settings, the exercises' plans (grader/grading/plan.py) and the counterexamples found so
far. ``grade()`` grades one submission in a run of its own (grader/grading/run.py: find the
student module, import it in a worker child, run the exercise's planned calls in one request, run
its checks, search counterexamples, name known mistakes, then its hidden checks), using the
services here: one check's run, a diagnosis, a counterexample search. A broken file costs
only the exercises that live in it.
"""

from __future__ import annotations

import os
from pathlib import Path

from grader.checks.api import Context, Fail, course_frame
from grader.grading.counterexample import Budget as CounterexampleBudget
from grader.grading.counterexample import search as search_counterexample
from grader.course.loader import Course, Exercise
from grader.grading.diagnose import Diagnoser
from grader.sandbox.display_packages import declare as declare_display_packages
from grader.base.errors import CourseError, InternalError
from grader.base.i18n import Message
from grader.course.kit_records import NotInKit
from grader.sandbox.plain_code import shares_one_child
from grader.grading import kept_memo
from grader.grading.plan import Plan, record_plan
from grader.grading.run import SubmissionRun, names_from_hidden_calls
from grader.report.results import CheckResult, SubmissionResult
from grader.sandbox.client import StudentError, Worker
from grader.course.cache import cached_parse
from grader.course.runtime import CourseRuntime
from grader.grading.stand_ins import StandInAnswers
from grader.sandbox.trusted_calls import Overrun
from grader.submission.load import Submission

DEFAULT_TIME_LIMIT = 300.0   # seconds of wall clock for one whole submission
STRICT = os.environ.get("GRADER_STRICT") == "1"   # tests: a bug in a check raises instead of failing it
# Functions of exercises that lost points are answered by the reference in later exercises
# (grader/grading/stand_ins.py); GRADER_STAND_INS=0 grades every exercise with the student's own.
STAND_INS = os.environ.get("GRADER_STAND_INS", "1") != "0"
KEEP_MEMO = True   # test vectors, reference results and plans kept between runs (grader/grading/kept_memo.py)


class Grader:
    """Grades submissions against one course; reusable across many submissions."""

    def __init__(self, course: Course, worker: Worker | None = None, runtime: CourseRuntime | None = None,
                 isolation: str = "auto", time_limit: float = DEFAULT_TIME_LIMIT, counterexamples: bool = True,
                 hidden: bool = True, private: list[Path] = (), instructor_diagnosis: bool = True,
                 keep_answers: bool = False):
        """``private``: more paths student code must not reach (a class's folder, its gradebook);
        the course's are always. ``instructor_diagnosis``: name what the hidden checks' calls show
        (ExerciseResult.hidden_diagnoses, which the gradebook and the class report read); a command
        that only shows a report, such as ``grade check``, has no use for them and skips the work.
        ``keep_answers``: the parse of a student's answers.yaml kept in the cache folder, for a command
        that grades one student's work again and again (``grade check``), not a class's hundreds."""
        self.course = course
        self.runtime = runtime or CourseRuntime(course)
        # A student kit's runtime has no hidden check to run (nor the secret their inputs come from)
        # and no answer key: its reports grade the visible checks and say what the instructor grades.
        self.hidden = hidden and self.runtime.has_secret
        self.instructor_diagnosis = instructor_diagnosis
        self.answers_parse = cached_parse if keep_answers else None
        counterexamples = counterexamples and self.runtime.runs_reference   # a search needs it on new inputs
        declare_display_packages(course.info.display_packages if course.info else ())   # before the worker starts
        self.worker = worker or Worker(isolation=isolation, hidden=[course.root, *private])
        if worker is None:
            self.worker.prestart()   # starts while the submission is staged and the plan drawn
        self.diagnoser = Diagnoser(self.runtime)
        self.checks = course.registry.checks
        # The test vectors, reference results and plans an earlier run of this course built, for a
        # runtime that has none yet (a class's grading processes share their parent's, warm).
        fresh = KEEP_MEMO and not self.runtime.memo_entries()
        self.kept = kept_memo.KeptMemo(self.runtime, self.checks, self.hidden) if fresh else None
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
        """``progress``: told of each exercise as it starts and ends (grader/classroom/progress.py).
        One run of its own for each submission (grader/grading/run.py): nothing of it stays here."""
        try:
            return SubmissionRun(self, submission, only, progress).run()
        finally:
            if self.kept is not None:   # for the next run, where this one added to it
                self.kept.keep()

    def start_memo(self, exercises) -> None:
        """What earlier runs built for these exercises (grader/grading/kept_memo.py), before they are graded."""
        if self.kept is not None:
            self.kept.load(e.id for e in exercises)

    def shares_one_child(self, submission: Submission) -> bool:
        """Whether the submission's exercises may share one child (:func:`shares_one_child`)."""
        return shares_one_child(submission)

    def stand_in_answers(self) -> StandInAnswers | None:
        """A new submission's answers to its stand-in calls (grader/grading/stand_ins.py); None where
        the reference does not run here (a student kit) or they are off."""
        return StandInAnswers(self.runtime, self.course) if STAND_INS and self.runtime.runs_reference else None

    def plan(self, exercise: Exercise) -> Plan:
        """The calls the exercise's checks make on correct code (grader/grading/plan.py), once per run."""
        return self.runtime.memo(("plan", exercise.id),
                                 lambda: record_plan(self.runtime, exercise, self.checks, self.hidden))

    def hidden_evidence(self, exercise) -> bool:
        """Whether the exercise's hidden checks run here and some mistake may be named from them
        for the instructor."""
        return self.hidden and self.instructor_diagnosis and names_from_hidden_calls(exercise)

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

    def search(self, ctx: Context, func: str, budget: CounterexampleBudget):
        """The counterexample search, within the submission's ``budget``; a failure of the course's
        builder, names or reference on the builder's inputs is a course error naming the course
        file, never the student's."""
        try:
            return search_counterexample(ctx, func, budget)
        except (CourseError, StudentError):
            raise
        except Exception as exc:  # noqa: BLE001 -- the course's builders may raise anything
            frame = course_frame(exc, ctx)
            if not frame:
                raise
            raise CourseError(f"the counterexample search for {func}() failed in the course's code{frame}: "
                              f"{type(exc).__name__}: {exc}") from None

    def run_check(self, ctx: Context, spec, answers: StandInAnswers | None = None) -> CheckResult:
        """One check's result (``answers``: the submission's stand-in answers, whose overruns it names)."""
        implementation = self.checks[ctx.exercise.id][spec.id]
        result = CheckResult(name=spec.id, passed=False, score=0.0, max_score=spec.points,
                             title=spec.title, hint=spec.hint, hidden=spec.hidden)
        ctx.student.keep_output = not spec.hidden
        overruns = len(answers.overruns) if answers is not None else 0
        try:
            implementation(ctx)
        except Fail as failure:
            result.message = self._overrun(answers, overruns, ctx) or failure.message
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
            result.message = (self._overrun(answers, overruns, ctx)
                              or Message("err.unjudgeable", detail=type(exc).__name__))
            result.internal = f"{type(exc).__name__}: {exc}"
            return result
        result.passed, result.score = True, spec.points
        return result

    def _overrun(self, answers, since: int, ctx: Context) -> Message | None:
        """What a check that failed says when a stand-in call made for it was stopped at a limit
        (grader/grading/stand_ins.py): which function, which limit. ``since``: the overruns before it."""
        return answers.overrun_message(since, ctx.exercise.id, ctx.current) if answers is not None else None
