"""One submission's grading: a run object and the stages it goes through, in order.

:class:`~grader.grading.engine.Grader` is built once per course and settings and holds what every
submission shares (the course, its runtime, the worker, the settings, the plans and the
counterexamples found so far). ``Grader.grade`` builds a :class:`SubmissionRun` for each
submission, which holds everything learnt about that submission while it is graded (its
deadline, its budgets, the exercises that lost points, the modules that do not import, the
stand-ins...) and runs its stages: ``SubmissionRun.STAGES``, then per code exercise
``EXERCISE_STAGES`` and ``HIDDEN_STAGES``. Nothing of one submission outlives its run.

Where each exercise's hidden checks run right after its visible ones (in the sandbox, each
exercise in a child of its own: ``Grader.hidden_right_after``), an exercise goes through its
HIDDEN_STAGES at once; else every exercise's wait for ``hidden_checks_last``, once every
visible check and counterexample search is done: whatever student code learns from a hidden
input, nothing shown comes after.

What the run needs from the runtime it asks it (``runs_reference``, ``has_secret``,
``has_answer_key``): a student kit's runtime answers from the release's records only
(grader/course/kit_records.py), so its reports have no stand-ins, no counterexamples, no
hidden checks and no quiz marks.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

from grader.base.i18n import Message
from grader.checks.api import Context
from grader.course.loader import Exercise
from grader.grading.counterexample import Budget as CounterexampleBudget
from grader.grading.counterexample import behaviour
from grader.grading.counterexample import recheck as recheck_counterexample
from grader.grading.graded_work import WHAT_WAS_GRADED, prepare
from grader.grading.plan import Plan
from grader.grading.stand_ins import stand_ins_for
from grader.grading.worker_errors import stopped_cell_notes, submission_error_message, submission_import_message
from grader.report.escaping import plain
from grader.report.results import CheckResult, Diagnosis, ExerciseResult, SubmissionResult
from grader.report.view import points
from grader.sandbox.client import StudentError
from grader.sandbox.notebook_run import notebook_runs
from grader.submission.answers import read_answers_yaml
from grader.submission.load import Submission

MISSING = object()   # no student with a function that behaved alike came before
# Failures worth a counterexample: wrong values or an exception, not a missing function or a crash.
SEARCHABLE = ("cmp.", "prop.", "err.exception")
# ... but not an argument changed in place: the search compares results only, so all it could
# show is a call whose result is wrong, which is not what that check says (and, for a function
# whose results are right, a search through cases that cannot fault it).
UNSEARCHABLE = ("prop.input_modified",)


class GradingContext(Context):
    """Context, with the trusted side's refusals (grader/sandbox/client.py) in the student's terms, and
    files named as the student handed them in (a single file or notebook by its own name)."""

    def __init__(self, runtime, exercise, student, submission: Submission | None = None, notebooks: dict | None = None):
        super().__init__(runtime, exercise, student, submission.describe_line if submission is not None else None)
        self.submission = submission
        self.notebooks = notebooks or {}   # the submission's notebook runs (grader/sandbox/notebook_run.py)

    def error_message(self, error: dict, func: str) -> tuple:
        return submission_error_message(error, func, self.exercise, self.submission, self.runtime.course,
                                        self._describe_line, self.notebooks)

    def take_calls(self) -> list:
        """The calls recorded so far, which the context forgets (with the latest result)."""
        calls, self.calls, self.last = self.calls, [], None
        return calls


@dataclass
class ExerciseRun:
    """One code exercise on its way through the stages; ``result`` ends it."""

    exercise: Exercise
    module: str | None = None
    stand_ins: tuple = ()
    student: object = None
    plan: Plan | None = None
    ctx: GradingContext | None = None
    checks: dict = field(default_factory=dict)
    named: list | None = None   # the known mistakes its visible calls show (None: not looked for)
    visible_calls: list = field(default_factory=list)   # its visible checks' calls, kept until the hidden ones
    result: ExerciseResult | None = None


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


def failed_exercise(exercise: Exercise, problem: Message) -> ExerciseResult:
    checks = [CheckResult(name=c.id, passed=False, score=0.0, max_score=c.points, message=problem,
                          title=c.title, hint=c.hint, hidden=c.hidden) for c in exercise.checks]
    return ExerciseResult(id=exercise.id, title=exercise.title, checks=checks, problem=problem)


class SubmissionRun:
    """One submission's grading by ``grader`` (grader/grading/engine.py): ``run()`` goes through
    STAGES, each a method of this class."""

    STAGES = ("prepare", "stage", "exercises", "hidden_checks_last", "unstage", "notes")
    # Each code exercise's, in order; the first that gives it a result (its file is missing or
    # does not import) ends it.
    EXERCISE_STAGES = ("find_module", "stand_ins", "import_module", "visible_checks", "counterexamples",
                       "diagnosis")
    # Then, right after or once every exercise's visible checks are done (see the module docstring):
    HIDDEN_STAGES = ("hidden_checks", "hidden_diagnosis")

    def __init__(self, grader, submission: Submission, only=(), progress=None):
        self.grader, self.runtime, self.course, self.worker = grader, grader.runtime, grader.course, grader.worker
        self.submission, self.only, self.progress = submission, only, progress
        self.trace: list[tuple] = []   # (stage, exercise id or None), in the order they ran
        self.start = time.perf_counter()
        self.deadline = float("inf")   # time.monotonic() past which nothing more runs (set when prepared)
        self.cx_budget: CounterexampleBudget | None = None   # the counterexamples' time (set when prepared)
        self.import_failures: dict[str, dict] = {}
        self.timed_out: dict[str, float] = {}   # functions not called again (grader/sandbox/client.py)
        self.lost: set[str] = set()   # exercises that lost points: later ones get stand-ins for them
        self.lost_hidden: set[str] = set()   # ... on hidden checks only: later hidden checks get them
        # Functions of exercises that kept their visible points only with stand-ins inside (a right
        # function over a wrong helper it calls): later exercises stand them in as well (stand_ins_for).
        self.leaning: dict[str, set[str]] = {}
        self.broken: set[str] = set()   # modules that do not import or are missing
        self.done: set[str] = set()     # exercises wholly graded
        self.results: dict[str, ExerciseResult] = {}
        self.elapsed: dict[str, float] = {}
        self.pending: list[ExerciseRun] = []
        self.answers = None   # the stand-in answers (grader/grading/stand_ins.py), or None
        self.selected: list[Exercise] = []   # the exercises graded here
        self.by_instructor: list[Exercise] = []
        self.shared = False
        self.notebooks: dict = {}
        self.root = None
        self.result: SubmissionResult | None = None
        self._staged = contextlib.ExitStack()

    def run(self) -> SubmissionResult:
        try:
            for stage in self.STAGES:
                self.trace.append((stage, None))
                getattr(self, stage)()
        finally:
            self._staged.close()
        return self.result

    # ------------------------------------------------------------ the submission's stages

    def prepare(self):
        """The notebook or the .py files to grade (grader/grading/graded_work.py), which exercises,
        and how: one child for every exercise or not, stand-ins or not, notebook runs."""
        self.submission = prepare(self.submission, self.course)
        self.deadline = time.monotonic() + self.grader.time_limit
        self.cx_budget = CounterexampleBudget()
        exercises = self.course.select(self.only)
        self.by_instructor = [e for e in exercises if e.is_quiz] if not self.runtime.has_answer_key else []
        self.selected = [e for e in exercises if e not in self.by_instructor]
        self.grader.start_memo(e for e in self.selected if not e.is_quiz)
        self.shared = self.grader.shares_one_child(self.submission)
        self.answers = self.grader.stand_in_answers()
        if self.progress is not None:
            self.progress.start(total=len(self.selected))
        self.notebooks = notebook_runs(self.submission, self.course)

    def stage(self):
        """The submission staged in the worker, for the stages up to unstage."""
        self.root = self._staged.enter_context(self.worker.staged(
            self.submission.root, share=self.shared, stand_ins=self.answers, notebooks=self.notebooks))
        bounded = self.runtime.trusted_calls()   # its budget of diagnosis replays is the submission's own
        if bounded is not None:
            bounded.new_submission()

    def exercises(self):
        right_after = self.grader.hidden_right_after(self.shared)
        for exercise in self.selected:
            if self.progress is not None:
                self.progress.begin(exercise.id)
            t0 = time.perf_counter()
            if exercise.is_quiz:
                self.trace.append(("quiz", exercise.id))
                self.results[exercise.id] = self.quiz(exercise)
            else:
                graded = self.visible(exercise)
                if graded.result is not None:
                    self.done.add(exercise.id)
                    self.results[exercise.id] = graded.result
                elif right_after:
                    self.results[exercise.id] = self.hidden(graded)
                else:
                    self.pending.append(graded)
            self.elapsed[exercise.id] = time.perf_counter() - t0
            if self.progress is not None:
                self.progress.advance(exercise.id)

    def hidden_checks_last(self):
        while self.pending:
            graded = self.pending.pop(0)   # let go of each exercise as soon as it is graded
            t0 = time.perf_counter()
            self.results[graded.exercise.id] = self.hidden(graded)
            self.elapsed[graded.exercise.id] += time.perf_counter() - t0

    def unstage(self):
        self._staged.close()

    def notes(self):
        for exercise_id, result in self.results.items():
            result.elapsed = self.elapsed[exercise_id]
        submission, worker = self.submission, self.worker
        notes = [*submission.messages, *(Message("note.submission", text=plain(n, 500)) for n in submission.notes)]
        first = 1 if notes and notes[0].key in WHAT_WAS_GRADED else 0     # after what was graded, named once
        notes[first:first] = stopped_cell_notes(submission, self.notebooks, self.course)
        if not worker.isolation.confined:
            notes.append(Message("note.not_sandboxed", reason=worker.isolation.reason))
        elif not worker.isolation.sandboxed:   # the fallback (grader/sandbox/isolation.py) says which it is
            notes.append(Message("note.confined", how=self.grader.isolation, reason=worker.isolation.reason))
        # What a student kit's runtime leaves to the instructor: hidden checks, the quiz.
        notes += kit_notes(self.selected if not self.runtime.has_secret else [], self.by_instructor)
        self.result = SubmissionResult(source=plain(str(submission.source), 500),
                                       exercises=[self.results[e.id] for e in self.selected], notes=notes,
                                       isolation=self.grader.isolation, elapsed=time.perf_counter() - self.start)

    # ------------------------------------------------------------ a code exercise's stages

    def visible(self, exercise: Exercise) -> ExerciseRun:
        graded = ExerciseRun(exercise)
        for stage in self.EXERCISE_STAGES:
            self.trace.append((stage, exercise.id))
            getattr(self, stage)(graded)
            if graded.result is not None:
                break
        return graded

    def hidden(self, graded: ExerciseRun) -> ExerciseResult:
        for stage in self.HIDDEN_STAGES:
            self.trace.append((stage, graded.exercise.id))
            getattr(self, stage)(graded)
        return graded.result

    def find_module(self, graded: ExerciseRun):
        """The exercise's module, unless it is missing, refused at loading or failed to import."""
        exercise, submission = graded.exercise, self.submission
        module = graded.module = submission.module_for(exercise.file)
        if module is None:
            self.lost.add(exercise.id)   # stand_ins_for makes an empty module for a missing file
            graded.result = failed_exercise(exercise, Message("err.missing_file", file=exercise.file))
        elif module in submission.rejected:   # refused at loading (its encoding): the keyed message
            self.lost.add(exercise.id)
            self.broken.add(module)
            graded.result = failed_exercise(exercise, submission.rejected[module])
        elif module in self.import_failures:
            self.lost.add(exercise.id)
            graded.result = self.import_failed(exercise, self.import_failures[module])

    def stand_ins(self, graded: ExerciseRun):
        """The functions of earlier exercises the reference answers for (grader/grading/stand_ins.py)."""
        if self.answers is None:
            return
        exercise = graded.exercise
        # An exercise's functions are stood in only once it is wholly graded (its hidden checks
        # too), so nothing learnt from the reference reaches its own grading; in a shared child
        # (plain code) nothing outlives an exercise's fresh modules, so its visible checks suffice.
        ready = self.lost if self.shared else self.lost & self.done
        self.answers.grading(exercise.id)
        graded.stand_ins = stand_ins_for(self.course, exercise, ready, self.submission.module_for, self.broken,
                                         self.leaning_ready(not self.shared))

    def import_module(self, graded: ExerciseRun):
        """The module imported in the exercise's child, its planned visible calls run with it."""
        exercise = graded.exercise
        student = graded.student = self.worker.module(self.root, graded.module, exercise.timeout, self.deadline,
                                                      slot=exercise.id, exercise=exercise.id,
                                                      stand_ins=graded.stand_ins, timed_out=self.timed_out)
        graded.plan = self.grader.plan(exercise)
        error = student.open(plan=graded.plan.visible)
        if error is not None:
            self.lost.add(exercise.id)
            self.broken.add(graded.module)
            self.import_failures[graded.module] = error
            graded.result = self.import_failed(exercise, error, student.output)

    def visible_checks(self, graded: ExerciseRun):
        exercise = graded.exercise
        ctx = graded.ctx = GradingContext(self.runtime, exercise, graded.student, self.submission, self.notebooks)
        graded.checks = {spec.id: self.grader.run_check(ctx, spec, self.answers)
                         for spec in exercise.checks if not spec.hidden}
        graded.student.finish_plan()
        # From the visible checks (and imports) alone: hidden ones run last where the exercises
        # share a child, and the visible marks must not depend on where the hidden checks ran.
        # (An exercise that loses only hidden points is stood in for later hidden checks:
        # hidden_checks.)
        if not all(c.passed for c in graded.checks.values()):
            self.lost.add(exercise.id)
        elif self.answers is not None and (leaning := self.answers.leaning(exercise)):
            self.leaning[exercise.id] = leaning

    def counterexamples(self, graded: ExerciseRun):
        """For the first failing visible check of each function, the smallest failing input.

        Students whose function behaves the same on every graded call share one search
        (the cached input is re-checked on each of them, one call). The search calls a
        module of its own (a fresh import in the same child), so the exercise's module is
        left as its visible checks left it for its hidden ones."""
        if not self.grader.counterexamples:
            return
        exercise, graded_student = graded.exercise, graded.student
        student = self.worker.module(self.root, graded.module, exercise.timeout, self.deadline,
                                     slot=f"{exercise.id}#search", exercise=exercise.id, keep_output=False,
                                     stand_ins=graded_student.stand_ins, timed_out=graded_student.timed_out)
        ctx = GradingContext(self.runtime, exercise, student, self.submission, self.notebooks)
        searched = set()
        for result in graded.checks.values():
            func = result.func
            if (result.passed or result.hidden or not func or func in searched or result.message is None
                    or not result.message.key.startswith(SEARCHABLE) or result.message.key in UNSEARCHABLE):
                continue
            searched.add(func)
            key = (exercise.id, func, behaviour(graded.ctx.calls, func))
            # A student whose function behaved alike came before: their answer, found or not,
            # if their counterexample shows this function going wrong too (one call).
            known = self.grader._counterexamples.get(key, MISSING)
            found = recheck_counterexample(ctx, known) if known not in (None, MISSING) else None
            if found is None and known is not None:
                found = self.grader._counterexamples[key] = self.grader.search(ctx, func, self.cx_budget)
            if found is not None:
                result.counterexample = found.message()

    def diagnosis(self, graded: ExerciseRun):
        # What the student is told is named from the visible checks' calls alone: whether a
        # mistake is named then says nothing about a hidden input. Where a visible check failed,
        # mistakes are looked for now; the results are kept for the hidden checks only where every
        # visible check passed (they are the reference's size) or the instructor's diagnosis
        # (hidden_evidence) needs them too. An exercise with every check passed has nothing to explain.
        calls = graded.ctx.take_calls()
        if all(c.passed for c in graded.checks.values()):
            graded.named, graded.visible_calls = None, calls
        else:
            graded.named = self.grader._diagnose(graded.exercise, calls)
            graded.visible_calls = calls if self.grader.hidden_evidence(graded.exercise) else []

    def hidden_checks(self, graded: ExerciseRun):
        exercise, student, ctx, checks = graded.exercise, graded.student, graded.ctx, graded.checks
        hidden = [spec for spec in exercise.checks if spec.hidden] if self.grader.hidden else []
        if self.answers is not None:
            self.answers.grading(exercise.id)
        if hidden:
            student.keep_output = False
            # The module as the visible checks left it; but where an earlier exercise has since
            # lost hidden points (it is wholly graded: in every mode its hidden checks ran before
            # these), its functions are stood in too, in a fresh import, so a bug seen only by
            # its hidden checks does not dock these as well.
            fresh = self.stand_in_hidden_losses(exercise, student)
            student.open(fresh=fresh, plan=graded.plan.hidden)
            checks.update((spec.id, self.grader.run_check(ctx, spec, self.answers)) for spec in hidden)
            student.finish_plan()
            if not all(checks[spec.id].passed for spec in hidden):
                self.lost_hidden.add(exercise.id)
        student.close()

    def hidden_diagnosis(self, graded: ExerciseRun):
        """The exercise's result: its checks, the mistakes named (and, for the instructor only,
        those its hidden checks' calls show), its output and its stand-ins."""
        exercise, ctx, checks = graded.exercise, graded.ctx, graded.checks
        calls = graded.visible_calls
        hidden_calls = ctx.calls if self.grader.hidden_evidence(exercise) else []
        ctx.take_calls()
        graded.visible_calls = []
        results = [checks[spec.id] for spec in exercise.checks if spec.id in checks]
        named = graded.named
        if named is None:
            named = [] if all(c.passed for c in results) else self.grader._diagnose(exercise, calls)
        diagnoses = [Diagnosis(m.id, m.title, m.explanation, m.hint, m.evidence) for m in named]
        # For the instructor only (never rendered to the student): what a hidden check's calls show.
        hidden_named = [] if not hidden_calls or all(c.passed for c in results) else [
            m.id for m in self.grader._diagnose(exercise, calls, hidden_calls) if m not in named]
        self.done.add(exercise.id)
        leaning = {k: v for k, v in self.leaning.items() if k not in self.lost_hidden}
        note = self.answers.note(exercise.id, leaning) if self.answers is not None else None
        graded.result = ExerciseResult(id=exercise.id, title=exercise.title, checks=results, diagnoses=diagnoses,
                                       hidden_diagnoses=hidden_named,
                                       output="".join(graded.student.output), notes=[note] if note else [])

    def stand_in_hidden_losses(self, exercise: Exercise, student) -> bool:
        """Add stand-ins for wholly graded exercises that lost only hidden points; whether the
        module must be imported afresh for them."""
        if self.answers is None:
            return False
        ready = (self.lost | self.lost_hidden) & self.done
        return student.stand_in(stand_ins_for(self.course, exercise, ready, self.submission.module_for, self.broken,
                                              self.leaning_ready(True)))

    def leaning_ready(self, done_only: bool) -> dict:
        """The leaning functions later exercises may stand in (where the child is not shared, only
        wholly graded exercises', as for lost ones)."""
        return {k: v for k, v in self.leaning.items() if not done_only or k in self.done}

    def import_failed(self, exercise, error, output=()):
        result = failed_exercise(exercise, self.import_problem(error, exercise))
        result.output = "".join(output)
        return result

    def import_problem(self, cause: dict, exercise) -> Message:
        """Why the exercise's file does not import, naming the file as the student handed it in."""
        submission = self.submission
        return Message(*submission_import_message(cause, submission.file_of(exercise.file), submission, self.course))

    # ------------------------------------------------------------ the quiz

    def quiz(self, exercise: Exercise) -> ExerciseResult:
        from grader.quiz.grade import grade_quiz

        answers, problem, output = self.quiz_answers(exercise)
        if problem is not None:
            return failed_exercise(exercise, problem)
        return grade_quiz(exercise, answers, self.runtime.answer_key(), output, self.course.messages)

    def quiz_answers(self, exercise):
        """The student's answers as a dict, or the problem that prevents reading them."""
        submission = self.submission
        if submission.answers_file is not None:
            return (*read_answers_yaml(submission.answers_file, self.grader.answers_parse), "")
        module = submission.single_module
        if module is None:
            return {}, Message("err.missing_file", file=exercise.file), ""
        if module in submission.rejected:
            return {}, submission.rejected[module], ""
        if module in self.import_failures:
            return {}, self.import_problem(self.import_failures[module], exercise), ""
        student = self.worker.module(self.root, module, exercise.timeout, self.deadline, exercise=exercise.id)
        try:
            value = student.getattr("ANSWERS").value
        except StudentError as exc:
            if exc.kind == "import":
                self.import_failures[module] = exc.error.get("cause") or {}
                return {}, self.import_problem(exc.error.get("cause") or {}, exercise), ""
            if exc.kind == "missing":
                return {}, Message("err.no_answers_dict"), ""
            return {}, Message("err.answers_unreadable", detail=exc.kind), ""
        finally:
            student.close()
        if not isinstance(value, dict):
            return {}, Message("err.answers_not_dict", got=type(value).__name__), ""
        return value, None, "".join(student.output)
