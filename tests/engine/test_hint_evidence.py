"""Hints follow evidence (issue 39; grader/report/view.py): a hint that names a cause is shown only with
evidence of that cause, the named mistake's own hint or a check's hint for the way it failed where no
known mistake is named; otherwise the check's generic hint. Checked on every known mistake of the
bundled course (every implementation, and every variant under tests/variants/*/wrong/), in the text
report in both languages, in the pytest plugin's feedback and in a class run's feedback files. A
function that returns None or raises is told so first with no hint under it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, copy_reference, run_grade, with_mistake
from grader.base.i18n import LANGUAGES, text
from grader.kit.pytest_plugin import check_feedback, hidden_feedback
from grader.report import render
from grader.submission.load import load_submission
from grader.report.view import build

VARIANTS = ROOT / "tests" / "variants"


def squash(s: str) -> str:
    """Text without any whitespace: the text report wraps long lines at 100 columns."""
    return "".join(s.split())


def implementations(course):
    """(mistake, file, label) for every catalogued implementation and every variant of tests/variants."""
    found = []
    for exercise in course.exercises.values():
        for mistake in exercise.mistakes:
            found += [(mistake, variant, f"{mistake.id}:{variant.name}") for variant in mistake.variants]
            name = mistake.id.split(".", 1)[1]
            for variant in sorted((VARIANTS / exercise.id / "wrong").glob(f"{name}__*.py")):
                found.append((mistake, variant, f"{mistake.id}:variants/{variant.name}"))
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory, grader, course):
    """Each implementation graded once, on its own exercise: [(mistake, label, result)]."""
    tmp = tmp_path_factory.mktemp("hints")
    out = []
    for n, (mistake, variant, label) in enumerate(implementations(course)):
        exercise = course.exercises[mistake.exercise]
        folder = with_mistake(copy_reference(tmp / f"s{n}"), exercise.file, variant)
        out.append((mistake, label, grader.grade(load_submission(folder, tmp / f"w{n}"), (exercise.id,))))
    return out


def cause_hints(course, lang):
    """Every hint tied to a cause, by what it is tied to: each mistake's own, each check's per way of failing."""
    tied = {}
    for exercise in course.exercises.values():
        for mistake in exercise.mistakes:
            if text(mistake.hint, lang).strip():
                tied.setdefault(squash(text(mistake.hint, lang)), set()).add(mistake.id)
        for spec in exercise.checks:
            for kind, hint in spec.hints.items():
                tied.setdefault(squash(text(hint, lang)), set()).add(f"{exercise.id}.{spec.id}:{kind}")
    return tied


def pointing_elsewhere(shown: str, mistake, course, lang) -> list[str]:
    """The hints tied to another cause that ``shown`` contains."""
    own = squash(text(mistake.hint, lang))
    return sorted(cause for hint, causes in cause_hints(course, lang).items()
                  if hint and hint != own and hint in shown for cause in causes if cause != mistake.id)


def test_every_catalogued_mistake_has_implementations_and_the_variants_exist(course):
    labels = [label for _, _, label in implementations(course)]
    assert len(labels) >= 163
    for name in ("last_upstream_twice", "drops_earlier_upstream"):
        assert len([x for x in labels if x.startswith(f"bptt.{name}:variants/")]) >= 2


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_text_report_of_every_known_mistake_shows_its_own_hint_and_none_elsewhere(graded, course, lang):
    problems = []
    for mistake, label, result in graded:
        exercise = result.exercises[0]
        named = [d.id for d in exercise.diagnoses]
        report = squash(render(result, "text", lang))
        if mistake.hidden_evidence and mistake.id not in named:
            pass    # named to the instructor only: the student's report names nothing
        elif mistake.id not in named:
            problems.append(f"{label}: not named ({named})")
        elif squash(text(mistake.hint, lang)) not in report:
            problems.append(f"{label}: its own hint is not shown")
        if len(named) > 1:
            problems.append(f"{label}: other mistakes named too: {named}")
        elsewhere = pointing_elsewhere(report, mistake, course, lang)
        if elsewhere:
            problems.append(f"{label}: hints tied to another cause: {elsewhere}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_pytest_plugins_feedback_of_every_known_mistake_shows_no_hint_elsewhere(graded, course, lang):
    problems = []
    for mistake, label, result in graded:
        exercise = result.exercises[0]
        shown = [check_feedback(exercise, c, lang) for c in exercise.checks if not c.passed and not c.hidden]
        shown.append(hidden_feedback(exercise, lang))
        everything = squash("\n".join(shown))
        if mistake.id in [d.id for d in exercise.diagnoses] and squash(text(mistake.hint, lang)) not in everything:
            problems.append(f"{label}: its own hint is not shown")
        elsewhere = pointing_elsewhere(everything, mistake, course, lang)
        if elsewhere:
            problems.append(f"{label}: hints tied to another cause: {elsewhere}")
    assert not problems, "\n".join(problems)


def test_the_issues_two_examples(graded, course):
    """bptt's old matches_reference hint (h_(t-1), not h_t) under bptt.no_recurrent_grad, and forward's
    old single_step hint (the loop's edges) under forward.ignores_h0: neither is shown any more."""
    reports = {label: squash(render(result, "text", "en")) for mistake, label, result in graded}
    no_flow = reports["bptt.no_recurrent_grad:no_recurrent_grad.py"]
    assert squash("Loop backwards over t and carry a dh_next") in no_flow
    assert squash("not with h_t") not in no_flow
    ignores = reports["forward.ignores_h0:ignores_h0.py"]
    assert squash("Test with a non-zero h0") in ignores and squash("edges of your loop") not in ignores


def test_the_two_bptt_habits_are_named_on_every_variant_with_their_evidence(graded):
    for name, title in (("last_upstream_twice", "counted twice"), ("drops_earlier_upstream", "are dropped")):
        results = [(label, r) for m, label, r in graded if m.id == f"bptt.{name}"]
        assert len(results) >= 3, results
        for label, result in results:
            exercise = result.exercises[0]
            assert [d.id for d in exercise.diagnoses] == [f"bptt.{name}"], label
            assert exercise.score < exercise.max_score
            for lang in LANGUAGES:
                assert ("Evidence" if lang == "en" else "证据") in text(exercise.diagnoses[0].explanation, lang)
            assert title in text(exercise.diagnoses[0].title, "en")


def _load(path: Path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"variant_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.rnn_backward


@pytest.mark.parametrize("path", sorted([*(ROOT / "solutions" / "mistakes" / "bptt").glob("last_upstream_twice*.py"),
                                         *(VARIANTS / "bptt" / "wrong").glob("last_upstream_twice__*.py")]),
                         ids=lambda p: p.name)
def test_last_upstream_twice_evidence_t1_ones_gives_db_2(path):
    import numpy as np
    z = np.zeros
    got = _load(path)(z((1, 1, 1)), z((1, 1)), z((1, 1)), z(1), np.ones((1, 1, 1)))
    assert got["db"].tolist() == [2.0]        # the reference gives 1.0


@pytest.mark.parametrize("path", sorted([*(ROOT / "solutions" / "mistakes" / "bptt").glob("drops_earlier_upstream*.py"),
                                         *(VARIANTS / "bptt" / "wrong").glob("drops_earlier_upstream__*.py")]),
                         ids=lambda p: p.name)
def test_drops_earlier_upstream_evidence_upstream_at_step_0_only_gives_zeros(path):
    import numpy as np
    dHs = np.zeros((2, 2, 3))
    dHs[:, 0] = np.random.default_rng(1).normal(size=(2, 3))
    rng = np.random.default_rng(2)
    args = (rng.normal(size=(2, 2, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=3), dHs)
    got = _load(path)(*args)
    assert all(not np.any(got[k]) for k in ("dX", "dh0", "dW_x", "dW_h", "db"))
    sys_path = str(ROOT / "solutions" / "reference")
    import sys
    sys.path.insert(0, sys_path)
    try:
        from bptt import rnn_backward
        assert np.any(rnn_backward(*args)["db"])   # the reference's are not zero
    finally:
        sys.path.remove(sys_path)


# ------------------------------------------------------------------ None and raising (item 6)

NONE_FORWARD = "\n\ndef rnn_forward(X, W_x, W_h, b, h0=None):\n    Hs = X[..., :1] * 0\n"
RAISING_BPTT = ("\n\ndef rnn_backward(X, W_x, W_h, b, dHs, h0=None):\n"
                "    return {'dX': X @ W_h}\n")
EXTRA_AXIS = ("\n\n_right = rnn_forward\n\n\ndef rnn_forward(X, W_x, W_h, b, h0=None):\n"
              "    return _right(X, W_x, W_h, b, h0)[None]\n")


def block(report: str, exercise_id: str) -> str:
    """The lines of one exercise in a text report."""
    m = re.search(rf"(?ms)^{exercise_id}  .*?(?=^\S|\Z)", report)
    return m.group(0) if m else ""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_function_returning_none_or_raising_is_told_first_with_no_hint_under_it(tmp_path, grade, lang):
    folder = copy_reference(tmp_path / "s")
    (folder / "rnn_forward.py").write_text((folder / "rnn_forward.py").read_text() + NONE_FORWARD)
    (folder / "bptt.py").write_text((folder / "bptt.py").read_text() + RAISING_BPTT)
    report = render(grade(folder, ("forward", "bptt")), "text", lang)
    forward, bptt = block(report, "forward"), block(report, "bptt")
    hint = "Hint:" if lang == "en" else "提示:"
    none_line = "`rnn_forward` returns None" if lang == "en" else "`rnn_forward` 返回了 None"
    assert forward.splitlines()[1].strip().startswith(none_line), forward
    assert hint not in forward, forward
    raised = "`rnn_backward` raises ValueError" if lang == "en" else "`rnn_backward` 抛出了 ValueError"
    assert bptt.splitlines()[1].strip().startswith(raised), bptt
    assert hint not in bptt, bptt


def test_a_shape_hint_follows_only_a_result_of_the_wrong_shape(tmp_path, grade, course):
    """An extra axis no known mistake explains: the shape hint of shape_dtype (its kind matched); a
    named mistake of the wrong shape (time-major states): the generic hint under its own."""
    folder = copy_reference(tmp_path / "s")
    (folder / "rnn_forward.py").write_text((folder / "rnn_forward.py").read_text() + EXTRA_AXIS)
    view = build(grade(folder, ("forward",)), "en")
    spec = next(c for c in course.exercises["forward"].checks if c.id == "shape_dtype")
    shape_dtype = next(c for c in view.exercises[0].checks if c.name == "shape_dtype")
    assert not view.exercises[0].diagnoses and shape_dtype.message_key.startswith("cmp.")
    assert shape_dtype.hint == text(spec.hints["shape"], "en")
    time_major = with_mistake(copy_reference(tmp_path / "t"), "rnn_forward.py",
                              ROOT / "solutions" / "mistakes" / "forward" / "time_major_output.py")
    view = build(grade(time_major, ("forward",)), "en")
    assert [d.id for d in view.exercises[0].diagnoses] == ["forward.time_major_output"]
    shape_dtype = next(c for c in view.exercises[0].checks if c.name == "shape_dtype")
    assert shape_dtype.hint == text(spec.hint, "en")
    # wrong values, nothing named, no hint for values: the generic hint, never a guessed cause
    doubled = copy_reference(tmp_path / "d")
    (doubled / "rnn_forward.py").write_text((doubled / "rnn_forward.py").read_text() + EXTRA_AXIS.replace(
        "[None]", " * 2"))
    view = build(grade(doubled, ("forward",)), "en")
    assert not view.exercises[0].diagnoses
    matches = next(c for c in view.exercises[0].checks if c.name == "matches_reference")
    generic = next(c for c in course.exercises["forward"].checks if c.id == "matches_reference").hint
    assert matches.hint == text(generic, "en")


# ------------------------------------------------------------------ a class run's feedback files

CLASS = {"bptt": ["no_recurrent_grad.py", "uses_current_state.py", "last_upstream_twice.py",
                  "drops_earlier_upstream.py", "db_keepdims.py"],
         "forward": ["ignores_h0.py", "state_not_carried.py", "time_major_output.py"]}


@pytest.mark.parametrize("kind", ["markdown", "html"])
def test_a_class_runs_feedback_files_show_each_mistakes_own_hint_and_none_elsewhere(tmp_path, course, kind):
    folder = tmp_path / "class"
    students = {}
    for exercise_id, files in CLASS.items():
        exercise = course.exercises[exercise_id]
        for file in files:
            mistake = next(m for m in exercise.mistakes if m.id == f"{exercise_id}.{file[:-3]}")
            student = f"{exercise_id}_{file[:-3]}"
            with_mistake(copy_reference(folder / student), exercise.file,
                         ROOT / "solutions" / "mistakes" / exercise_id / file)
            students[student] = mistake
    book = tmp_path / "book.sqlite"
    code, out, err = run_grade("class", folder, "--jobs", "2", "--only", "forward", "--only", "bptt",
                               "--gradebook", book, "--feedback", kind, "--no-counterexamples")
    assert code == 0, err
    suffix = ".md" if kind == "markdown" else ".html"
    pages = {p.stem.split(".")[0]: p.read_text(encoding="utf-8") for p in tmp_path.rglob(f"*{suffix}")
             if p.stem.split(".")[0] in students}
    assert set(pages) == set(students), sorted(p.name for p in tmp_path.rglob("*"))
    import html as html_module
    for student, mistake in students.items():
        page = squash(html_module.unescape(pages[student]).replace("\\", ""))
        assert squash(text(mistake.hint, "en")).replace("\\", "") in page, student
        assert not pointing_elsewhere(page, mistake, course, "en"), student


# ------------------------------------------------------------------ a fresh kit (item 7)

@pytest.fixture(scope="module")
def fresh_kit(tmp_path_factory):
    out = tmp_path_factory.mktemp("kit") / "kit"
    code, _, err = run_grade("release", out)
    assert code == 0, err
    return out


def test_a_fresh_kits_report_is_one_line_per_exercise_with_no_hints(fresh_kit, course):
    code, out, err = run_grade("check", fresh_kit)
    assert code == 1, err
    lines = out.rstrip("\n").splitlines()
    assert len(lines) <= 40, out
    assert "Hint" not in out and "not implemented yet" not in out
    for exercise in course.exercises.values():
        line = next(x for x in lines if x.startswith(f"{exercise.id}  "))
        if exercise.is_quiz:
            assert line.endswith(f"not started: {len(exercise.checks)} questions to answer"), line
        else:
            assert line.endswith(f"not started: edit {exercise.file}"), line
            assert f"0/{exercise.max_score:g}" in line
    assert lines[-1] == "Where to begin: step (One RNN step), in rnn_step.py. Then run grade check again."
    code, zh, _ = run_grade("check", fresh_kit, "--lang", "zh")
    assert len(zh.splitlines()) <= 40 and "提示: " not in zh and "尚未开始：请编辑 rnn_step.py" in zh
    assert zh.rstrip().splitlines()[-1].startswith("从这里开始：step")


def test_verbose_and_the_other_formats_keep_every_check_of_a_fresh_kit(fresh_kit, course):
    import json
    code, out, _ = run_grade("check", fresh_kit, "--verbose")
    assert code == 1
    for exercise in course.exercises.values():
        for spec in exercise.checks:
            assert re.search(rf"✗ {re.escape(spec.id)}\b", out), (exercise.id, spec.id)
    assert "not implemented yet" in out and "No answer given." in out
    assert "Hint" not in out     # a stub's NotImplementedError and an unanswered question: no hint guesses
    code, data, _ = run_grade("check", fresh_kit, "--format", "json")
    data = json.loads(data)
    assert sum(len(e["checks"]) for e in data["exercises"]) == sum(len(e.checks) for e in course.exercises.values())


def test_a_started_exercise_shows_its_checks_and_unanswered_questions_are_one_line(tmp_path, fresh_kit):
    import shutil
    kit = tmp_path / "kit"
    shutil.copytree(fresh_kit, kit)
    shutil.copy2(ROOT / "solutions" / "reference" / "rnn_step.py", kit / "rnn_step.py")
    answers = (ROOT / "solutions" / "reference" / "answers.yaml").read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(answers) if line and not line.startswith((" ", "#")))
    (kit / "answers.yaml").write_text("\n".join(answers[:first + 1]) + "\n", encoding="utf-8")
    code, out, _ = run_grade("check", kit, "--only", "step", "--only", "forward", "--only", "quiz")
    assert "step  One RNN step  11/11" in out and "✓ matches_reference" in out
    assert "not started: edit rnn_forward.py" in out
    assert re.search(r"✗ \d+ questions not answered yet", out), out
    assert "No answer given." not in out
    assert out.rstrip().splitlines()[-1].startswith("Where to begin: forward")


# ------------------------------------------------------------------ the course's hints, classified (item 2)

# What the bundled course's visible checks said for every failure before (each names one cause; the issue
# found the first two under other causes). Each now lives on the mistake or the way of failing it explains.
CAUSES_ONCE_IN_GENERIC_HINTS = [
    "not with h_t", "edges of your loop", "not again from the initial state", "h = h0 does not copy",
    "Is position L itself valid", "not T - 1 and not L", "not by B * T", "not a fixed -1 or 1",
    "not the singular values", "not from each array's own norm", "look first at your rnn_backward",
    "a missing 1/N", "look at the sign of the step", "instead of the constants 1 and 0.5",
    "not only the final state", "Which weight belongs to the input", "not stacked along a new axis",
    "not T-1, ..., 0", "so there are T states, not T + 1",
]


def test_no_generic_hint_of_a_visible_check_names_a_cause(course):
    for exercise in course.exercises.values():
        for spec in exercise.checks:
            if spec.hidden:
                continue
            generic = text(spec.hint, "en")
            assert not [c for c in CAUSES_ONCE_IN_GENERIC_HINTS if c in generic], (exercise.id, spec.id, generic)
            assert text(spec.hint, "zh") or not generic, (exercise.id, spec.id)


def test_the_pytest_plugin_says_a_none_result_plainly_with_no_hint(tmp_path, grade):
    folder = copy_reference(tmp_path / "s")
    (folder / "rnn_forward.py").write_text((folder / "rnn_forward.py").read_text() + NONE_FORWARD)
    exercise = grade(folder, ("forward",)).exercises[0]
    for lang in LANGUAGES:
        for check in [c for c in exercise.checks if not c.passed and not c.hidden]:
            said = check_feedback(exercise, check, lang)
            assert ("`rnn_forward` returns None" if lang == "en" else "`rnn_forward` 返回了 None") in said
            assert "Hint:" not in said and "提示:" not in said
